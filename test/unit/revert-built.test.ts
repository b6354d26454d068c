// unit: slow — it builds real repositories with the real tsc (about 13 s).
/**
 * The culprit's revert in a built (TypeScript) service: the profile names dist/server.js, the
 * pull request changed src/server.ts. A real repository built by the real `tsc`; the culprit's
 * place is read from the built file as a profile would name it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import type { ServiceConfig } from '../../src/config/types.js';
import { silentLogger } from '../../src/engine/ports.js';
import { ProcessTracker } from '../../src/engine/process/processes.js';
import { revertFunction, runsHeadsCode } from '../../src/engine/workspace/revert.js';
import { builtHunks, sourceLines, sourceOf } from '../../src/engine/workspace/source-map.js';
import { describeCulpritPlace } from '../../src/profile/names.js';
import { changedByPr, parseDiff } from '../../src/profile/changes.js';
import { setupTree, type Tree } from '../../src/engine/workspace/trees.js';
import { baseSha, headSha, makeRepo, ROOT } from '../helpers/repo.js';

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BUILD = `"${process.execPath}" "${TSC}" -p .`;

const BASE = `interface Role {
  user: string;
  name: string;
}

const ROLES: Role[] = [{ user: 'ada', name: 'admin' }];

export function resolvePermissions(user: string): Role[] {
  return ROLES.filter((r) => r.user === user);
}

export function render(list: Role[]): string {
  return list.map((r) => r.name).join(',');
}

export function count(list: Role[]): number {
  return list.length;
}
`;

const HEAD = BASE.replace('  return ROLES.filter', '  const roles: Role[] = JSON.parse(JSON.stringify(ROLES));\n  return roles.filter').replace(
  "map((r) => r.name).join(',')",
  "map((r) => r.name.toUpperCase()).join(',')",
);

const tsconfig = (sourceMap: boolean) =>
  JSON.stringify({ compilerOptions: { target: 'es2020', module: 'commonjs', rootDir: 'src', outDir: 'dist', strict: true, sourceMap }, include: ['src'] });

/**
 * The repository's build by tsc's own compiler in this process, as `tsc -p . [extra]` would make it. The
 * standard library's declarations are read once for the file: a `tsc` process per build spends seconds
 * reading them again, and the builds here are the fixture, not what is tested (the reverted tree's
 * build is the service's own command, run by the arm).
 */
const LIBS = new Map<string, ts.SourceFile | undefined>();
function tsc(dir: string, extra: string[] = []): void {
  const fail = (d: readonly ts.Diagnostic[]) => {
    if (d.length) throw new Error(ts.formatDiagnostics(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' }));
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), ts.parseCommandLine(extra).options, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => fail([d]),
  });
  assert.ok(parsed, `${dir}/tsconfig.json could not be read`);
  fail(parsed.errors);
  const host = ts.createCompilerHost(parsed.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, ...rest) => {
    if (!name.includes('/node_modules/typescript/lib/')) return read(name, ...rest);
    if (!LIBS.has(name)) LIBS.set(name, read(name, ...rest));
    return LIBS.get(name);
  };
  const program = ts.createProgram(parsed.fileNames, parsed.options, host);
  fail(ts.getPreEmitDiagnostics(program));
  fail(program.emit().diagnostics);
}

function headTree(dir: string): Tree {
  return { side: 'head', ref: 'head', sha: headSha(dir), dirty: false, root: dir };
}

/** A function in the built file as a profile names it: its first line to its closing brace's, 1-based. */
function builtCulprit(dir: string, name = 'resolvePermissions') {
  const lines = readFileSync(join(dir, 'dist', 'server.js'), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.startsWith(`function ${name}(`)) + 1;
  const endLine = lines.findIndex((l, i) => i >= line && l === '}') + 1;
  assert.ok(line > 0 && endLine > line, lines.join('\n'));
  return { name, file: 'dist/server.js', line, endLine };
}

/** The service's build run in the reverted tree as the third arm runs it (install skipped, node_modules head's). */
async function build(tree: Tree, logDir: string): Promise<void> {
  const service: ServiceConfig = { install: '', build: BUILD, setup: null, start: 'node dist/server.js', cwd: '.', env: {}, ready: { path: null, timeoutMs: 10_000 } };
  const ports = { logger: silentLogger, progress: () => {}, env: {}, secrets: [] };
  mkdirSync(logDir, { recursive: true });
  await setupTree(tree, { service, env: { PATH: process.env['PATH'] ?? '' }, logDir, tracker: new ProcessTracker() }, ports);
}

function scratchOf(dir: string): string {
  return join(dir, '..', `${dir.split('/').at(-1)}-scratch`);
}

test("a TypeScript service: the culprit in dist/ is traced by tsc's source map to src/server.ts, whose hunk is reverted; the build remakes a service without the change", async () => {
  const dir = makeRepo({ 'tsconfig.json': tsconfig(true), '.gitignore': 'dist\nnode_modules\n', 'src/server.ts': BASE }, { 'src/server.ts': HEAD });
  const scratch = scratchOf(dir);
  try {
    tsc(dir);
    const fn = builtCulprit(dir);
    const revert = await revertFunction({ head: headTree(dir), since: baseSha(dir), fn, cwd: '.', builds: true, scratchDir: scratch });
    assert.ok(revert.ok, revert.ok ? '' : revert.reason);
    assert.deepEqual([revert.file, revert.hunks], ['src/server.ts', 1]);
    assert.equal(readFileSync(join(revert.tree.root, 'src/server.ts'), 'utf8'), HEAD.replace(/ {2}const roles: .*\n {2}return roles/, '  return ROLES'), "only the culprit's .ts lines are base's");
    await build(revert.tree, join(scratch, 'logs'));
    const built = readFileSync(join(revert.tree.root, 'dist', 'server.js'), 'utf8');
    assert.doesNotMatch(built, /JSON\.parse/, 'the reverted service, built, lacks the change');
    assert.match(built, /toUpperCase/, "the other function keeps head's change");
    assert.match(readFileSync(join(dir, 'dist', 'server.js'), 'utf8'), /JSON\.parse/, "head's own build is untouched");
    assert.equal(runsHeadsCode(dir, revert.tree.root, fn), null);
    await revert.dispose();
    const unbuilt = await revertFunction({ head: headTree(dir), since: baseSha(dir), fn, cwd: '.', builds: false, scratchDir: scratch });
    assert.ok(!unbuilt.ok);
    assert.equal(
      unbuilt.reason,
      'could not revert resolvePermissions: dist/server.js is built from src/server.ts (its source map), and the service has no build (service.build) to remake it from a reverted source',
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});

test("build output committed without a source map: its hunk reverts, but the build remakes it from head's source, and that is 'could not revert'", async () => {
  const dir = makeRepo({ 'tsconfig.json': tsconfig(false), '.gitignore': 'node_modules\n', 'src/server.ts': BASE }, {});
  const scratch = scratchOf(dir);
  const commit = (message: string) => {
    execFileSync('git', ['add', '-A'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '--quiet', '-m', message], { cwd: dir });
  };
  try {
    // Base and head each commit their own build output, as a service that deploys dist/ from git does.
    execFileSync('git', ['checkout', '--quiet', 'main'], { cwd: dir });
    tsc(dir);
    commit('base build');
    execFileSync('git', ['checkout', '--quiet', 'head'], { cwd: dir });
    execFileSync('git', ['reset', '--quiet', '--hard', 'main'], { cwd: dir });
    writeFileSync(join(dir, 'src', 'server.ts'), HEAD);
    tsc(dir);
    commit('head');
    const fn = builtCulprit(dir);
    const revert = await revertFunction({ head: headTree(dir), since: baseSha(dir), fn, cwd: '.', builds: true, scratchDir: scratch });
    assert.ok(revert.ok, revert.ok ? '' : revert.reason);
    assert.equal(revert.file, 'dist/server.js', 'no source map: the built file itself is reverted');
    assert.doesNotMatch(readFileSync(join(revert.tree.root, 'dist', 'server.js'), 'utf8'), /JSON\.parse/);
    await build(revert.tree, join(scratch, 'logs'));
    assert.equal(
      runsHeadsCode(dir, revert.tree.root, fn),
      "could not revert resolvePermissions: after the build, dist/server.js in the reverted tree is head's byte for byte, so the reverted service would still run this PR's change",
    );
    await revert.dispose();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});

test("tsc's inline source map (inlineSourceMap) is read as well; a built file without one, or a bundle of several sources, is not traced", () => {
  const dir = makeRepo({ 'tsconfig.json': tsconfig(false), 'src/server.ts': HEAD }, {});
  try {
    tsc(dir, ['--inlineSourceMap']);
    const fn = builtCulprit(dir);
    const source = BASE.split('\n');
    const line = source.findIndex((l) => l.startsWith('export function resolvePermissions')) + 1;
    assert.deepEqual(sourceOf(dir, fn.file, fn.line, fn.endLine), { file: 'src/server.ts', line, endLine: line + 3 });
    tsc(dir);
    assert.equal(sourceOf(dir, fn.file, fn.line, fn.endLine), null, 'no source map: the built file is what runs and what is reverted');
    // A bundle: the function's lines come from two sources, so no one source is its.
    const map = { version: 3, file: 'bundle.js', sources: ['../src/a.ts', '../src/b.ts'], names: [], mappings: 'AAAA;ACAA' };
    writeFileSync(join(dir, 'dist', 'bundle.js'), `a();\nb();\n//# sourceMappingURL=bundle.js.map\n`);
    writeFileSync(join(dir, 'dist', 'bundle.js.map'), JSON.stringify(map));
    assert.equal(sourceOf(dir, 'dist/bundle.js', 1, 2), null);
    assert.deepEqual(sourceOf(dir, 'dist/bundle.js', 2, 2), { file: 'src/b.ts', line: 1, endLine: 1 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the PR's change as the built file shows it: a function in dist/ is marked changed by this PR when its source lines are, and not otherwise", () => {
  const dir = makeRepo({ 'tsconfig.json': tsconfig(true), '.gitignore': 'dist\nnode_modules\n', 'src/server.ts': BASE }, { 'src/server.ts': HEAD });
  try {
    tsc(dir);
    const diff = execFileSync('git', ['diff', '-M', '--unified=0', '--src-prefix=a/', '--dst-prefix=b/', 'main', 'head'], { cwd: dir, encoding: 'utf8' });
    const files = parseDiff(diff);
    assert.deepEqual(files.map((f) => f.file), ['src/server.ts'], 'git ignores dist/: the diff has the source alone');
    const hunks = builtHunks(dir, 'dist/server.js', files);
    assert.ok(hunks !== null && hunks.length > 0);
    const changes = { since: baseSha(dir), files: [...files, { file: 'dist/server.js', hunks }] };
    assert.equal(changedByPr(builtCulprit(dir, 'resolvePermissions'), changes), true);
    assert.equal(changedByPr(builtCulprit(dir, 'render'), changes), true);
    assert.equal(changedByPr(builtCulprit(dir, 'count'), changes), false, 'a function the PR did not touch stays unchanged');
    assert.equal(builtHunks(dir, 'tsconfig.json', files), null, 'a file without a source map has no built change');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a culprit that ran in dist/server.js is named at the src/server.ts line it was written on; results.json keeps where it ran', () => {
  const dir = makeRepo({ 'tsconfig.json': tsconfig(true), '.gitignore': 'dist\nnode_modules\n', 'src/server.ts': BASE, 'plain.js': 'function plain() {\n  return 1;\n}\n' }, { 'src/server.ts': HEAD });
  try {
    tsc(dir);
    const fn = builtCulprit(dir);
    const written = HEAD.split('\n').findIndex((l) => l.startsWith('export function resolvePermissions')) + 1;
    assert.notEqual(fn.line, written, 'tsc moved the function: the built line is not the source line');
    const [source, plain] = sourceLines(dir, [fn, { file: 'plain.js', line: 1 }]);
    assert.deepEqual(source, { file: 'src/server.ts', line: written });
    assert.equal(plain, null, 'a file without a source map is named where it ran');
    const id = { ...fn, column: 10, category: 'own' as const, package: null, source: source! };
    assert.equal(describeCulpritPlace({ fn: id, changed: true, edited: null }), `resolvePermissions (src/server.ts:${written}, changed by this PR)`);
    assert.deepEqual([id.file, id.line], ['dist/server.js', fn.line], 'where it ran stays beside it');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

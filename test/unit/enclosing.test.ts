/**
 * Anonymous functions named by the named function around them in the source, when coverage has
 * lost it: a route helper run once at start-up holds the arrow every request runs.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildCallTree, type CallNode } from '../../src/profile/call-tree.js';
import { parseCpuProfile } from '../../src/profile/cpuprofile.js';
import { enclosingFunctions } from '../../src/profile/enclosing.js';
import { rangesFromOffsets } from '../../src/profile/inlining.js';
import { describeFunction } from '../../src/profile/names.js';

const script = fileURLToPath(new URL('../fixtures/enclosing/routes.js', import.meta.url));
const source = readFileSync(script, 'utf8');
const lines = source.split('\n');

/** 1-based line and column where `text` starts on the line that holds `marker`. */
function at(marker: string, text: string): [number, number] {
  const index = lines.findIndex((line) => line.includes(marker));
  return [index + 1, lines[index]!.indexOf(text) + 1];
}

function allNodes(node: CallNode): CallNode[] {
  return [node, ...node.children.flatMap(allNodes)];
}

describe('the named function around an anonymous one, from the source', () => {
  it('finds the innermost named function, by its own name or the one V8 infers; "" at the top level', () => {
    const enclosing = enclosingFunctions(lines)!;
    assert.equal(enclosing(...at('routes.set(', '(request)')), 'GET');
    assert.equal(enclosing(...at("GET('/users/:id'", '(request)')), '');
    const inferred = enclosingFunctions(['const load = async () => {', '  return [1].map((x) => x);', '};', 'class A {', '  get() { return () => 1; }', '}'])!;
    assert.equal(inferred(2, 21), 'load');
    assert.equal(inferred(5, 17), 'get');
    assert.equal(enclosingFunctions(['const x: number = 1;']), null, 'TypeScript does not parse: coverage keeps its word');
  });

  it('a real profile names the route arrow "arrow in GET" although coverage lost GET', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-enclosing-'));
    try {
      execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, script]);
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
      const profile = parseCpuProfile(readFileSync(join(dir, file), 'utf8'), file);
      const url = pathToFileURL(script).href;
      // What best-effort coverage reports at exit: the arrows and spin ran on every request, GET once at start-up.
      const covered = ['(request) => handler(request)', "(request) => spin(request.work))"].map((text): [string, number, number] => {
        const start = source.indexOf(text);
        return ['', start, start + text.replace(/\)$/, '').length];
      });
      const ranges = new Map([[url, rangesFromOffsets(source, covered)]]);
      const tree = buildCallTree([profile], { root: dirname(script), ranges, sources: (u) => (u === url ? lines : null) });
      const names = new Set(allNodes(tree.root).filter((n) => n.fn.category === 'own').map((n) => describeFunction(n.fn)));
      assert.ok(names.has('arrow in GET (routes.js:8)'), [...names].join('\n'));
      assert.ok(names.has('arrow at top level (routes.js:17)'), [...names].join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { summarizeCallTree } from '../../src/profile/aggregate.js';
import { buildCallTree } from '../../src/profile/call-tree.js';
import { type CpuProfile, countSamples, ProfileFormatError, parseCpuProfile } from '../../src/profile/cpuprofile.js';
import { boundSummaries, diffProfiles, hottestChanges, matchFunctions } from '../../src/profile/diff.js';
import { flamegraphProfile, renderDiffFlamegraph } from '../../src/profile/flamegraph.js';
import { describeLocation, identifyFrame } from '../../src/profile/frames.js';
import { culpritAmong } from '../../src/profile/culprit.js';
import { describeOrigin, displayName } from '../../src/profile/names.js';
import { calledNames, functionKind, functionSource, rangesFromOffsets, sourceHash } from '../../src/profile/inlining.js';
import { applyOptimizationTrace, parseOptimizationTrace } from '../../src/profile/optimization.js';
import { describeCulprit } from '../../src/report/document/function-words.js';
import type { FunctionStats, ProfileSummary } from '../../src/results/types.js';
import { fixtureProfile, fixtureSummary, fixtureTree, fixtureWindow, lineOf, RECORDED_ROOT } from '../helpers/profiles.js';

const frame = (functionName: string, url: string, lineNumber = 0, columnNumber = 0) => ({ functionName, scriptId: '1', url, lineNumber, columnNumber });

/** A profile from nested [name, url, line, self samples, children] tuples; samples 1 ms apart. */
type Spec = [string, string, number, number, Spec[]];
function profileOf(root: Spec[]): CpuProfile {
  const nodes: CpuProfile['nodes'] = [{ id: 1, callFrame: frame('(root)', '', -1, -1), children: [] }];
  const samples: number[] = [];
  const add = (spec: Spec, parent: CpuProfile['nodes'][number]) => {
    const [name, url, line, self, children] = spec;
    const node = { id: nodes.length + 1, callFrame: frame(name, url, line - 1, 10), hitCount: self, children: [] as number[] };
    nodes.push(node);
    parent.children!.push(node.id);
    for (let i = 0; i < self; i++) samples.push(node.id);
    for (const child of children) add(child, node);
  };
  for (const spec of root) add(spec, nodes[0]!);
  return { nodes, startTime: 1000, endTime: 1000 + samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) };
}

const stats = (name: string, file: string, line: number, self: number, total = self): FunctionStats => ({
  name,
  file,
  line,
  column: 1,
  category: 'own',
  package: null,
  self,
  total,
});

const summary = (functions: FunctionStats[], samples = 100): ProfileSummary => ({
  samples,
  idleSamples: 0,
  categories: { own: 0, dependency: 0, node: 0, native: 0 },
  functions,
  functionCount: functions.length,
});

describe('cpuprofile: reading V8 profiles', () => {
  test('rejects what is not a complete profile, naming the file', () => {
    assert.throws(() => parseCpuProfile('{"nodes": [', 'a.cpuprofile'), (e: Error) => e instanceof ProfileFormatError && /a\.cpuprofile is not JSON/.test(e.message));
    assert.throws(() => parseCpuProfile('{"samples": []}', 'b.cpuprofile'), /b\.cpuprofile is not a V8 CPU profile/);
  });

  test('a window keeps only the samples taken inside it (the recorded load window)', () => {
    const profile = fixtureProfile('head');
    const all = [...countSamples(profile).values()].reduce((a, b) => a + b, 0);
    const inWindow = [...countSamples(profile, fixtureWindow('head')).values()].reduce((a, b) => a + b, 0);
    assert.equal(all, profile.samples!.length);
    assert.ok(inWindow > 0 && inWindow < all, `${inWindow} of ${all} samples in the load window`);
  });
});

describe('frames: naming and classifying functions', () => {
  const root = '/work/repo';
  test('own code is named relative to the tree, anonymous functions by their location', () => {
    assert.deepEqual(identifyFrame(frame('buildPayload', 'file:///work/repo/src/payload.js', 4, 21), root), {
      name: 'buildPayload',
      file: 'src/payload.js',
      line: 5,
      column: 22,
      category: 'own',
      package: null,
    });
    assert.equal(identifyFrame(frame('', '/work/repo/server.js', 6, 16), root).name, '(anonymous server.js:7:17)');
  });

  test('dependencies carry their package (scoped too), core and native their kind', () => {
    const dep = identifyFrame(frame('route', 'file:///work/repo/node_modules/@fastify/router/lib/a.js', 9), root);
    assert.equal(dep.category, 'dependency');
    assert.equal(dep.package, '@fastify/router');
    assert.equal(dep.file, 'node_modules/@fastify/router/lib/a.js');
    assert.equal(describeLocation(dep), '@fastify/router · lib/a.js:10');
    assert.equal(identifyFrame(frame('emit', 'node:events', 470), root).category, 'node');
    const native = identifyFrame(frame('writev', '', -1, -1), root);
    assert.deepEqual([native.category, native.file, native.line, describeLocation(native)], ['native', '', 0, 'V8/native']);
    assert.equal(identifyFrame(frame('(garbage collector)', ''), root).category, 'native');
  });

  test('code outside the tree is not own code; a tree inside a node_modules is', () => {
    const outside = identifyFrame(frame('f', 'file:///usr/lib/tool/x.js'), root);
    assert.deepEqual([outside.category, outside.file], ['dependency', '/usr/lib/tool/x.js']);
    assert.equal(identifyFrame(frame('f', 'file:///a/node_modules/x/repo/src/y.js'), '/a/node_modules/x/repo').category, 'own');
  });
});

describe('inlining: source ranges from coverage offsets', () => {
  test('offsets become 1-based lines and columns; ranges past the source are dropped', () => {
    const source = 'const a = 1;\nfunction f(x) {\n  return x;\n}\n';
    const start = source.indexOf('function');
    const end = source.indexOf('}') + 1;
    assert.deepEqual(rangesFromOffsets(source, [['f', start, end], ['gone', 0, 999]]), [
      { name: 'f', startLine: 2, startColumn: 1, endLine: 4, endColumn: 1, hash: sourceHash(source.slice(start, end)), kind: 'function' },
    ]);
  });

  test('the same function text hashes alike wherever it is; kinds are told apart by their first characters', () => {
    const text = '(req, res) => {\n  res.end(check(req.url));\n}';
    const before = `const x = 1;\nserve(${text});\n`;
    const after = `const x = 1;\n// a comment\n\nfunction other() {}\nserve(${text});\n`;
    const [a] = rangesFromOffsets(before, [['', before.indexOf('(req'), before.indexOf('(req') + text.length]]);
    const [b] = rangesFromOffsets(after, [['', after.indexOf('(req'), after.indexOf('(req') + text.length]]);
    assert.notEqual(a!.startLine, b!.startLine);
    assert.equal(a!.hash, b!.hash);
    assert.deepEqual(['function f() {}', 'async function () {}', '(a) => a', 'x => x', 'async (a) => a', 'method() {}'].map(functionKind), [
      'function',
      'function',
      'arrow',
      'arrow',
      'arrow',
      'method',
    ]);
  });
});

describe('call tree and function table (recorded profiles)', () => {
  test('a function V8 inlined into its caller gets its samples back, by source line', () => {
    // Recorded on Node 24: V8 kept most of slowEtag's samples in the request handler's node
    // (slowEtag and buildPayload inlined), with slowEtag's own lines in its position ticks.
    const slowEtagLine = lineOf('payload-head.js', 'function slowEtag');
    const withoutRanges = summarizeCallTree(fixtureTree('head', { ranges: false }));
    const withRanges = summarizeCallTree(fixtureTree('head'));
    const find = (s: ProfileSummary, name: string) => s.functions.find((f) => f.name === name)!;
    const handler = '(anonymous server.js:7:17)';
    assert.ok(find(withoutRanges, handler).self > find(withoutRanges, 'slowEtag').self, 'V8 left the inlined samples in the caller');
    assert.equal(withRanges.samples, withoutRanges.samples, 'samples are moved, not made');
    const own = withRanges.functions.filter((f) => f.category === 'own');
    assert.equal(own[0]!.name, 'slowEtag', 'the inlined hot function has its own row, first');
    assert.equal(own[0]!.file, 'src/payload.js');
    assert.equal(own[0]!.line, slowEtagLine);
    assert.ok(find(withRanges, handler).self < find(withRanges, 'slowEtag').self / 10);
    assert.ok(fixtureTree('head').inlinedSamples > 0);
  });

  test('idle samples are counted apart; self ≤ total; categories add up to the samples', () => {
    const s = fixtureSummary('base');
    assert.ok(s.idleSamples > 0);
    assert.ok(s.functions.every((f) => f.self <= f.total && f.total <= s.samples));
    assert.equal(Object.values(s.categories).reduce((a, b) => a + b, 0), s.samples);
    assert.ok(!s.functions.some((f) => f.name === '(idle)' || f.name === '(root)'));
  });

  test('profiles of several processes merge by call path', () => {
    const one = fixtureTree('head');
    const two = buildCallTree([fixtureProfile('head'), fixtureProfile('head')], { root: RECORDED_ROOT, window: fixtureWindow('head') });
    assert.equal(two.samples, 2 * buildCallTree([fixtureProfile('head')], { root: RECORDED_ROOT, window: fixtureWindow('head') }).samples);
    assert.deepEqual(two.perProfile, [two.samples / 2, two.samples / 2]);
    assert.equal(two.root.children.length, one.root.children.length, 'same paths, not duplicated');
  });

  test('total time counts a recursive function once per sample', () => {
    const tree = buildCallTree([profileOf([['walk', '/r/a.js', 1, 2, [['walk', '/r/a.js', 1, 3, [['leaf', '/r/a.js', 9, 5, []]]]]]])], { root: '/r' });
    const table = summarizeCallTree(tree);
    const walk = table.functions.find((f) => f.name === 'walk')!;
    assert.deepEqual([walk.self, walk.total, tree.samples], [5, 10, 10]);
  });

  test('an inlined nested function with no node of its own becomes a child of its caller', () => {
    const source = 'function outer() {\n  const inner = () => {\n    work();\n  };\n  return inner();\n}\n';
    const profile = profileOf([['outer', 'file:///r/a.js', 1, 10, []]]);
    profile.nodes[1]!.callFrame.columnNumber = source.indexOf('(');
    profile.nodes[1]!.positionTicks = [
      { line: 3, ticks: 8 },
      { line: 5, ticks: 2 },
    ];
    const ranges = new Map([
      [
        'file:///r/a.js',
        rangesFromOffsets(source, [
          ['outer', 0, source.lastIndexOf('}') + 1],
          ['inner', source.indexOf('() =>'), source.indexOf('};') + 1],
        ]),
      ],
    ]);
    const tree = buildCallTree([profile], { root: '/r', ranges });
    const outer = tree.root.children[0]!;
    assert.equal(outer.self, 2);
    assert.deepEqual(
      outer.children.map((c) => [c.fn.name, c.self]),
      [['inner', 8]],
    );
    assert.equal(tree.inlinedSamples, 8);
  });
});

describe('inlining: a line is the function\'s whose code starts it', () => {
  test('a callback that starts on its caller\'s line does not take that line; its own lines it does', () => {
    const source = 'function merge(ids) {\n  return ids.flatMap((id) => {\n    return pick(id);\n  });\n}\n';
    const profile = profileOf([['merge', 'file:///r/a.js', 1, 10, []]]);
    profile.nodes[1]!.callFrame.columnNumber = source.indexOf('(ids)');
    profile.nodes[1]!.positionTicks = [
      { line: 2, ticks: 7 },
      { line: 3, ticks: 3 },
    ];
    const ranges = new Map([
      [
        'file:///r/a.js',
        rangesFromOffsets(source, [
          ['merge', 0, source.lastIndexOf('}') + 1],
          ['', source.indexOf('(id)'), source.indexOf('});') + 1],
        ]),
      ],
    ]);
    const merge = buildCallTree([profile], { root: '/r', ranges, sources: () => source.split('\n') }).root.children[0]!;
    assert.deepEqual(
      [merge.self, merge.children.map((c) => [c.fn.name, c.self])],
      [7, [['(anonymous a.js:2:22)', 3]]],
    );
  });
});

describe('inlining: a callee never sampled on its own', () => {
  test('lines of another function of the same script go to it, not to the functions around the caller', () => {
    const source = 'function mix(a) {\n  return a * 31;\n}\nfunction handle(n) {\n  return mix(n);\n}\n';
    const profile = profileOf([['handle', 'file:///r/a.js', 4, 10, []]]);
    profile.nodes[1]!.callFrame.columnNumber = source.indexOf('(n)');
    profile.nodes[1]!.positionTicks = [
      { line: 2, ticks: 7 },
      { line: 5, ticks: 3 },
    ];
    const whole = source.length;
    const ranges = new Map([
      [
        'file:///r/a.js',
        rangesFromOffsets(source, [
          ['', 0, whole],
          ['mix', 0, source.indexOf('}') + 1],
          ['handle', source.indexOf('function handle'), source.lastIndexOf('}') + 1],
        ]),
      ],
    ]);
    const handle = buildCallTree([profile], { root: '/r', ranges }).root.children[0]!;
    assert.deepEqual(
      [handle.self, handle.children.map((c) => [c.fn.name, c.self])],
      [3, [['mix', 7]]],
    );
  });
});

describe('call lines: samples V8 booked to the caller of the function that was running', () => {
  // a.js: a sum over objects, called by a request handler; Node's EventEmitter calls the handler
  const source = [
    'function sum(items) {',
    '  let t = 0;',
    '  for (const i of items) t += i.price;',
    '  return t;',
    '}',
    'const handler = (req, res) => {',
    '  const total = sum(req.items);',
    '  res.end(String(total));',
    '};',
    '',
  ].join('\n');
  const url = 'file:///r/a.js';
  const ranges = new Map([
    [
      url,
      rangesFromOffsets(source, [
        ['', 0, source.length],
        ['sum', 0, source.indexOf('}') + 1],
        ['handler', source.indexOf('(req, res)'), source.lastIndexOf('}') + 1],
      ]),
    ],
  ]);
  const emitSource = ['function emit(type, ...args) {', '  const handler = events[type];', '  const result = handler.apply(this, args);', '  return true;', '}'];
  const sources = (u: string) => (u === url ? source.split('\n') : u === 'node:events' ? emitSource : null);
  /** emit (10 samples) → handler (20) → sum (5), with these position ticks. */
  const profile = (emitTicks: [number, number][], handlerTicks: [number, number][]) => {
    const p = profileOf([['emit', 'node:events', 1, 10, [['', url, 6, 20, [['sum', url, 1, 5, []]]]]]]);
    p.nodes[2]!.callFrame.columnNumber = source.split('\n')[5]!.indexOf('(');
    p.nodes[1]!.positionTicks = emitTicks.map(([line, ticks]) => ({ line, ticks }));
    p.nodes[2]!.positionTicks = handlerTicks.map(([line, ticks]) => ({ line, ticks }));
    p.nodes[3]!.positionTicks = [{ line: 3, ticks: 5 }];
    return p;
  };
  const selfOf = (tree: ReturnType<typeof buildCallTree>) => {
    const emit = tree.root.children[0]!;
    const handler = emit.children[0]!;
    return { emit: emit.self, handler: handler.self, sum: handler.children.find((c) => c.fn.name === 'sum')?.self ?? 0 };
  };

  test('the ticks on the line that calls a function sampled below go to it; other lines stay', () => {
    // handler: 12 ticks on sum's call line, 8 on res.end(…) (no child of that name: its own)
    const tree = buildCallTree([profile([[2, 10]], [[7, 12], [8, 8]])], { root: '/r', ranges, sources });
    assert.deepEqual(selfOf(tree), { emit: 10, handler: 8, sum: 17 });
    assert.equal(tree.samples, 35, 'samples are moved, not made');
  });

  test('a caller with no source range (Node core) gives an indirect call\'s ticks to the callee, and they follow its inlined lines', () => {
    // emit: 10 ticks on handler.apply(…); handler: half its ticks on sum's inlined line 3, half its own line 8
    const tree = buildCallTree([profile([[3, 10]], [[3, 10], [8, 10]])], { root: '/r', ranges, sources });
    assert.deepEqual(selfOf(tree), { emit: 0, handler: 15, sum: 20 });
  });

  test('without the sources, on a line that calls nothing, or on a minified line, the ticks stay', () => {
    assert.deepEqual(selfOf(buildCallTree([profile([[3, 10]], [[7, 20]])], { root: '/r', ranges })), { emit: 10, handler: 20, sum: 5 });
    assert.deepEqual(selfOf(buildCallTree([profile([[4, 10]], [[9, 20]])], { root: '/r', ranges, sources })), { emit: 10, handler: 20, sum: 5 });
    const minified = (u: string) => (u === url ? source.split('\n').map((l, i) => (i === 6 ? `${l} /*${'x'.repeat(400)}*/` : l)) : null);
    assert.deepEqual(selfOf(buildCallTree([profile([[4, 10]], [[7, 20]])], { root: '/r', ranges, sources: minified })), { emit: 10, handler: 20, sum: 5 });
  });

  test('a line that also calls a builtin keeps its ticks: the builtin ran there, without a frame of its own', () => {
    // handler line 7 parses the body before it calls sum: JSON.parse's samples are the handler's
    for (const call of ['sum(JSON.parse(req.body))', 'sum(req.items.slice().sort())']) {
      const withBuiltin = (u: string) => (u === url ? source.replace('sum(req.items)', call).split('\n') : sources(u));
      const tree = buildCallTree([profile([[2, 10]], [[7, 12], [8, 8]])], { root: '/r', ranges, sources: withBuiltin });
      assert.deepEqual(selfOf(tree), { emit: 10, handler: 20, sum: 5 }, call);
    }
  });

  test('calledNames: calls and constructions, not keywords', () => {
    assert.deepEqual(calledNames('if (a) return sum(items.filter((x) => x)) + new Total(b);'), ['sum', 'filter', 'Total']);
    assert.deepEqual(calledNames('for (const x of xs) while (y) {}'), []);
  });
});

describe('diff: base against head', () => {
  test('the recorded regression: the new hot function is first among changed own functions', () => {
    const changes = diffProfiles(fixtureSummary('base'), fixtureSummary('head'));
    const [first] = hottestChanges(changes, ['own'], 10);
    assert.equal(first!.name, 'slowEtag');
    assert.equal(first!.file, 'src/payload.js');
    assert.equal(first!.line, lineOf('payload-head.js', 'function slowEtag'));
    assert.equal(first!.status, 'new');
    assert.equal(first!.base, null);
    assert.ok(first!.change > 0.2, `+${(first!.change * 100).toFixed(1)} pp`);
  });

  test('a function whose line moved is matched by name and file', () => {
    const pairs = matchFunctions(
      [stats('render', 'src/a.js', 10, 5), stats('old', 'src/a.js', 30, 5)],
      [stats('render', 'src/a.js', 14, 7), stats('fresh', 'src/a.js', 40, 1)],
    );
    const names = pairs.map(([b, h]) => `${b?.name ?? '-'}:${b?.line ?? ''}→${h?.name ?? '-'}:${h?.line ?? ''}`);
    assert.deepEqual(names.sort(), ['-:→fresh:40', 'old:30→-:', 'render:10→render:14']);
    const changes = diffProfiles(summary([stats('render', 'src/a.js', 10, 5)]), summary([stats('render', 'src/a.js', 14, 7)]));
    assert.deepEqual([changes[0]!.line, changes[0]!.baseLine, changes[0]!.status], [14, 10, 'both']);
    assert.ok(Math.abs(changes[0]!.change - 0.02) < 1e-12);
  });

  test('two candidates of the same name and file are not guessed at', () => {
    const pairs = matchFunctions([stats('f', 'a.js', 1, 1), stats('f', 'a.js', 5, 1)], [stats('f', 'a.js', 2, 1), stats('f', 'a.js', 6, 1)]);
    assert.equal(pairs.filter(([b, h]) => b && h).length, 0);
  });

  test('bounded tables keep counterparts, so their diff agrees with the full one', () => {
    const full = { base: fixtureSummary('base'), head: fixtureSummary('head') };
    const bounded = boundSummaries(full.base, full.head, 3);
    assert.ok(bounded.head.functions.length < full.head.functions.length);
    assert.equal(bounded.head.functionCount, full.head.functions.length);
    const rows = (b: ProfileSummary, h: ProfileSummary) =>
      hottestChanges(diffProfiles(b, h), ['own', 'dependency', 'node', 'native'], 3).map((c) => [c.name, c.status, c.base?.self, c.head?.self]);
    assert.deepEqual(rows(bounded.base, bounded.head), rows(full.base, full.head));
  });
});

describe('flamegraphs', () => {
  test('the 0x input keeps every sample, with 1-based lines and core URLs in 0x\'s form', () => {
    const tree = fixtureTree('head');
    const profile = flamegraphProfile(tree);
    assert.equal(profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0), tree.samples);
    const slowEtag = profile.nodes.find((n) => n.callFrame.functionName === 'slowEtag')!;
    assert.deepEqual([slowEtag.callFrame.url, slowEtag.callFrame.lineNumber], ['./src/payload.js', lineOf('payload-head.js', 'function slowEtag')]);
    assert.ok(profile.nodes.some((n) => n.callFrame.url === 'events.js'), 'node:events → events.js');
  });

  test('names from the code cannot break out of the pages', () => {
    const hostile = '</script><img src=x onerror=alert(1)>';
    const tree = buildCallTree([profileOf([[hostile, '/r/a.js', 1, 3, []]])], { root: '/r' });
    assert.ok(!JSON.stringify(flamegraphProfile(tree)).includes('<'), '0x embeds names unescaped');
    const html = renderDiffFlamegraph({ head: tree, base: tree, moved: new Map(), title: hostile });
    assert.equal(html.match(/<\/script>/g)!.length, 2, 'only the page\'s own two script elements end');
    assert.ok(!html.includes('<img'));
  });
});

describe('own-code attribution and the culprit (issue 13)', () => {
  // handler → compressBody → gzipSync (node:zlib) → processChunkSync (node:zlib) → writeSync (native)
  const tree = (zlib: boolean) =>
    buildCallTree(
      [
        profileOf([
          [
            '',
            '/r/server.js',
            11,
            5,
            [
              ['compressBody', '/r/server.js', 7, 1, zlib ? [['gzipSync', 'node:zlib', 900, 2, [['processChunkSync', 'node:zlib', 800, 70, [['writeSync', '', 0, 10, []]]]]]] : []],
              ['stringify', '', 0, 12, []],
            ],
          ],
          ['(garbage collector)', '', 0, 4, []],
        ]),
      ],
      { root: '/r' },
    );

  test('every sample is charged to the innermost own function on its stack; what it went into is kept', () => {
    const table = summarizeCallTree(tree(true));
    const row = (name: string) => table.functions.find((f) => f.name === name)!;
    assert.equal(row('compressBody').self, 1);
    assert.equal(row('compressBody').attributed, 1 + 2 + 70 + 10);
    assert.equal(row('(anonymous server.js:11:11)').attributed, 5 + 12, 'the handler keeps its own and stringify, not compressBody\'s');
    assert.deepEqual(
      row('compressBody').into!.map((f) => [f.name, f.samples]),
      [
        ['processChunkSync', 70],
        ['writeSync', 10],
        ['gzipSync', 2],
      ],
    );
    assert.equal(row('stringify').attributed, undefined, 'only own code is attributed');
    const own = table.functions.filter((f) => f.category === 'own').reduce((sum, f) => sum + f.attributed!, 0);
    assert.equal(own, table.samples - 4, 'everything but the garbage collector (no own frame on its stack)');
  });

  test("a dependency function's time with the core and native frames it calls, up to the next package or own function", () => {
    // handler → serialize (dep) → asString (dep) → RegExp (native) ; serialize → asNumber (dep) → toString (native) ; asString → callback (own) → stringify (native)
    const table = summarizeCallTree(
      buildCallTree(
        [
          profileOf([
            [
              'handler',
              '/r/server.js',
              3,
              2,
              [
                [
                  'serialize',
                  '/r/node_modules/fjs/index.js',
                  10,
                  1,
                  [
                    ['asString', '/r/node_modules/fjs/index.js', 20, 3, [['RegExp: ^[\\w ]*$', '', 0, 40, []], ['callback', '/r/server.js', 9, 1, [['stringify', '', 0, 6, []]]]]],
                    ['asNumber', '/r/node_modules/fjs/index.js', 30, 5, [['toString', '', 0, 2, []]]],
                  ],
                ],
              ],
            ],
          ]),
        ],
        { root: '/r' },
      ),
    );
    const row = (name: string) => table.functions.find((f) => f.name === name)!;
    assert.equal(row('asString').withNatives, 3 + 40, 'its regex, not the own callback below it, nor what that calls');
    assert.equal(row('asNumber').withNatives, 5 + 2);
    assert.equal(row('serialize').withNatives, 1, 'its callees are functions of a package: their own');
    assert.equal(row('handler').withNatives, undefined, 'own code has attributed time instead');
    assert.equal(row('callback').attributed, 1 + 6);
  });

  test('the culprit: the own function whose attributed time grew most, and what into', () => {
    const base = summarizeCallTree(tree(false));
    const head = summarizeCallTree(tree(true));
    const changes = diffProfiles(base, head);
    const [first] = hottestChanges(changes, ['own'], 10);
    assert.equal(first!.name, 'compressBody');
    const culprit = culpritAmong(changes)!;
    assert.equal(culprit.text, 'most new time in compressBody (server.js:7) → zlib');
    assert.equal(describeCulprit(culprit).replace(/[\d.]+ pp/g, 'N pp'), 'compressBody (server.js:7) +N pp, +N pp of it in zlib processChunkSync');
    assert.equal(culpritAmong(diffProfiles(base, base)), null, 'nothing grew: no culprit');
  });

  test('a dependency\'s async function resumed after an await is charged to the own function that called it; event callbacks are not', () => {
    // handler calls Jimp.read and loadFont and awaits them: their synchronous first parts run under
    // handler, the decoding after their awaits on stacks of the dependency's frames alone, right
    // under the root or under Node's microtask runner; a socket's data callback starts in Node core.
    const jimp = '/r/node_modules/@jimp/core/index.js';
    const font = '/r/node_modules/@jimp/plugin-print/load-font.js';
    const table = summarizeCallTree(
      buildCallTree(
        [
          profileOf([
            [
              'handler',
              '/r/server.js',
              12,
              3,
              [
                ['read', jimp, 90, 1, []],
                ['print', '/r/node_modules/@jimp/plugin-print/index.js', 117, 6, []],
              ],
            ],
            ['read', jimp, 90, 2, [['fromBuffer', jimp, 200, 1, [['decode', '/r/node_modules/pngjs/lib/parser-sync.js', 15, 40, []]]]]],
            ['processTicksAndRejections', 'node:internal/process/task_queues', 95, 0, [['runMicrotasks', '', 0, 0, [['loadFont', font, 20, 30, []]]]]],
            ['onStreamRead', 'node:internal/stream_base_commons', 163, 1, [['parse', '/r/node_modules/pg-protocol/parser.js', 40, 25, []]]],
            ['(garbage collector)', '', 0, 4, []],
          ]),
        ],
        { root: '/r' },
      ),
    );
    const handler = table.functions.find((f) => f.name === 'handler')!;
    // its own 3, read's and print's first parts 7, read resumed 2 + 1 + 40, loadFont resumed (its package, called through print) 30
    assert.equal(handler.attributed, 3 + 7 + 43 + 30);
    assert.deepEqual(handler.into!.slice(0, 2).map((f) => [f.name, f.samples]), [['decode', 40], ['loadFont', 30]]);
    const own = table.functions.filter((f) => f.category === 'own').reduce((sum, f) => sum + f.attributed!, 0);
    assert.equal(own, table.samples - 26 - 4, 'the socket callback and the garbage collector stay uncharged');
  });

  test('a regex whose pattern changed is the same work below the function: base\'s time is paired with head\'s, not read as new', () => {
    const regex = (pattern: string, samples: number) => ({ name: `RegExp: ${pattern}`, file: '', line: 0, column: 0, category: 'native' as const, package: null, samples });
    const side = (pattern: string, other: number) => summary([{ ...stats('handler', 'server.js', 40, 10, 60), attributed: 60, into: [regex(pattern, 48), regex('^\\d+$', other)] }]);
    const [handler] = diffProfiles(side('[\\u0000-\\u001f]|[\\ud800-\\udbff]', 2), side('[\\u0000-\\u001f]', 2));
    assert.deepEqual(
      handler!.into.map((f) => [f.name, f.change]),
      [
        ['RegExp: [\\u0000-\\u001f]', 0],
        ['RegExp: ^\\d+$', 0],
      ],
    );
    // two regexes gone and one new: which one it replaced is not known, so none is paired
    const two = summary([{ ...stats('handler', 'server.js', 40, 10, 60), attributed: 60, into: [regex('a+', 24), regex('b+', 24)] }]);
    const one = summary([{ ...stats('handler', 'server.js', 40, 10, 60), attributed: 60, into: [regex('c+', 48)] }]);
    assert.equal(diffProfiles(two, one)[0]!.into.length, 3);
  });

  test('a frame below the function whose line moved (an upgraded package) is the same function: base\'s time is paired with head\'s, not read as new', () => {
    // qs 6.16.0 → 6.16.1 moved parseQueryStringValues from line 72 to 122 and made decode cheaper
    const frame = (name: string, file: string, line: number, samples: number) => ({ name, file, line, column: 1, category: 'dependency' as const, package: 'qs', samples });
    const side = (into: ReturnType<typeof frame>[]) => summary([{ ...stats('handler', 'server.js', 20, 2, 60), attributed: 60, into }]);
    const base = side([frame('parseQueryStringValues', 'lib/parse.js', 72, 30), frame('decode', 'lib/utils.js', 263, 20)]);
    const head = side([frame('parseQueryStringValues', 'lib/parse.js', 122, 24), frame('decode', 'lib/utils.js', 263, 5)]);
    const [handler] = diffProfiles(base, head);
    assert.deepEqual(
      handler!.into.map((f) => [f.name, f.line, f.base, f.head]),
      [
        ['parseQueryStringValues', 122, 0.3, 0.24],
        ['decode', 263, 0.2, 0.05],
      ],
    );
    // two of a name gone and one new: which one moved is not known, so none is paired
    const two = side([frame('parse', 'lib/parse.js', 10, 20), frame('parse', 'lib/parse.js', 40, 20)]);
    assert.equal(diffProfiles(two, side([frame('parse', 'lib/parse.js', 90, 40)]))[0]!.into.length, 3);
  });

  test('time per request ranks: a saturated function five times slower keeps its share but is the culprit; without request counts, shares rank', () => {
    // base: 850 of 1,000 samples in sumPrices, 5,000 responses (170 µs of 200 µs per request);
    // head: 860 of 1,000, 1,000 responses (860 µs of 1 ms) — the rest grew in share, not in time
    const side = (sum: number, rest: number, requests: number) => ({
      ...summary([{ ...stats('sumPrices', 'server.js', 18, sum), attributed: sum }, { ...stats('handler', 'server.js', 40, rest), attributed: rest }]),
      samples: sum + rest,
      requests,
    });
    const base = side(850, 150, 5000);
    const head = side(860, 140, 1000);
    const changes = diffProfiles(base, head, 1000);
    const row = (name: string) => changes.find((c) => c.name === name)!;
    assert.deepEqual(row('sumPrices').scale, { base: 200, head: 1000 });
    assert.ok(Math.abs(row('sumPrices').added! - 690) < 1e-9, `${row('sumPrices').added} µs`);
    assert.ok(Math.abs(row('handler').added! - 110) < 1e-9);
    assert.equal(hottestChanges(changes, ['own'], 10)[0]!.name, 'sumPrices');
    const culprit = culpritAmong(changes)!;
    assert.equal(culprit.fn.name, 'sumPrices');
    assert.equal(describeCulprit(culprit), 'sumPrices (server.js:18) +690 µs per request');
    assert.equal(culpritAmong(diffProfiles(base, base, 1000)), null, 'nothing grew: no culprit');
    // results without request counts (or a side that served none): shares, as before
    const unscaled = diffProfiles(base, { ...head, requests: 0 }, 1000);
    assert.equal(unscaled[0]!.scale, null);
    assert.equal(unscaled.find((c) => c.name === 'sumPrices')!.added, null);
  });

  test('anonymous functions are named by their kind and enclosing function; regex frames by their pattern', () => {
    assert.equal(displayName({ name: '(anonymous x.js:8:19)', enclosing: 'formatPrices', kind: 'arrow' }), 'arrow in formatPrices');
    assert.equal(displayName({ name: '(anonymous x.js:8:19)', enclosing: '', kind: 'function' }), 'function at top level');
    assert.equal(displayName({ name: '(anonymous x.js:8:19)' }), '(anonymous x.js:8:19)', 'without source: by its place');
    const regex = { name: 'RegExp: ^([a-z]+)*$', file: '', line: 0, column: 0, category: 'native' as const, package: null };
    assert.equal(describeOrigin(regex), 'regex /^([a-z]+)*$/');
  });

  test('the enclosing function comes from the source ranges; an anonymous function that moved is matched by its text, or by its place in the code', () => {
    const source = 'function formatPrices(items) {\n  return items.map((p) => p.toFixed(2));\n}\n';
    const ranges = rangesFromOffsets(source, [
      ['', 0, source.length],
      ['formatPrices', 0, source.length - 1],
      ['', source.indexOf('(p)'), source.indexOf('(2))') + 3],
    ]);
    const found = functionSource(ranges, 2, source.split('\n')[1]!.indexOf('(p)') + 1)!;
    assert.equal(found.enclosing, 'formatPrices');
    assert.equal(found.kind, 'arrow');
    // best-effort coverage without the arrow: the function around it is its enclosing one, the line says its kind
    const withoutArrow = functionSource(ranges.slice(0, 2), 2, source.split('\n')[1]!.indexOf('(p)') + 1, source.split('\n')[1]);
    assert.deepEqual(withoutArrow, { range: null, enclosing: 'formatPrices', kind: 'arrow' });
    const expression = 'const f = function (a) {';
    assert.equal(functionSource(ranges.slice(0, 2), 2, expression.indexOf('(a)') + 1, expression)?.kind, 'function');
    const anon = (line: number, extra: Partial<FunctionStats>): FunctionStats => ({ ...stats(`(anonymous x.js:${line}:3)`, 'x.js', line, 5), ...extra });
    const byHash = matchFunctions([anon(6, { hash: 'abc', enclosing: '' })], [anon(11, { hash: 'abc', enclosing: '' })]);
    assert.deepEqual(byHash.map(([b, h]) => [b?.line, h?.line]), [[6, 11]]);
    const byPlace = matchFunctions([anon(6, { hash: 'abc', enclosing: 'f', kind: 'arrow' })], [anon(9, { hash: 'def', enclosing: 'f', kind: 'arrow' })]);
    assert.deepEqual(byPlace.map(([b, h]) => [b?.line, h?.line]), [[6, 9]]);
    const twoArrows = matchFunctions(
      [anon(6, { enclosing: 'f', kind: 'arrow' }), anon(7, { enclosing: 'f', kind: 'arrow' })],
      [anon(9, { enclosing: 'f', kind: 'arrow' })],
    );
    assert.equal(twoArrows.filter(([b, h]) => b && h).length, 0, 'two candidates are not guessed at');
  });

  test('V8\'s optimization trace: deoptimizations and aborted optimizations of named own functions, in head only', () => {
    const trace = [
      'signing with pbkdf2',
      '[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x0896dc482a19 <JSFunction sumPrices </r/server.js> (sfi = 0x1d0f85ee2fd1)>, 0x2372ae59a9a9 <Code TURBOFAN>, opt id 0, bytecode offset 6, deopt exit 1, FP to SP delta 56]',
      '[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x0896dc482a19 <JSFunction sumPrices </r/server.js> (sfi = 0x1d0f85ee2fd1)>, 0x2372ae59a9a9 <Code MAGLEV>, opt id 2]',
      '[bailout (kind: deopt-eager, reason: prepare for on stack replacement (OSR)): begin. deoptimizing 0x1 <JSFunction loop </r/server.js> (sfi = 0x2)>, 0x3 <Code MAGLEV>]',
      '[bailout (kind: deopt-eager, reason: not a Smi): begin. deoptimizing 0x1 <JSFunction  </r/server.js> (sfi = 0x2)>, 0x3 <Code MAGLEV>]',
      '[bailout (kind: deopt-eager, reason: Insufficient type feedback for binary operation): begin. deoptimizing 0x1 <JSFunction warm </r/server.js> (sfi = 0x2)>, 0x3 <Code MAGLEV>]',
      '[aborted optimizing 0x1 <JSFunction huge </r/lib/big.js> (sfi = 0x2)> because: Function is too big]',
    ].join('\n');
    const events = parseOptimizationTrace(trace, '/r');
    assert.deepEqual(events.get('sumPrices\u0000server.js'), { deopts: 2, reasons: ['wrong map'], aborted: [] });
    assert.equal(events.has('loop\u0000server.js'), false, 'tiering up (OSR) is no deoptimization to report');
    assert.equal(events.has('warm\u0000server.js'), false, 'nor a path that had not run yet');
    assert.deepEqual(events.get('huge\u0000lib/big.js')?.aborted, ['Function is too big']);
    const head = [stats('sumPrices', 'server.js', 16, 50), stats('withTry', 'server.js', 30, 5)];
    const base = [stats('sumPrices', 'server.js', 16, 10), stats('withTry', 'server.js', 30, 5)];
    applyOptimizationTrace(head, events);
    const changes = diffProfiles(summary(base), summary(head));
    assert.deepEqual(changes.find((c) => c.name === 'sumPrices')!.optimization, { kind: 'deoptimized', count: 2, reasons: ['wrong map'] });
    assert.equal(changes.find((c) => c.name === 'withTry')!.optimization, null, 'a try/catch function V8 optimized is not marked');
    // deoptimized on both sides: not news
    applyOptimizationTrace(base, events);
    assert.equal(diffProfiles(summary(base), summary(head)).find((c) => c.name === 'sumPrices')!.optimization, null);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { insideTree } from '../../src/engine/phases/profile.js';
import { nameHolders, writersOf } from '../../src/profile/holder-writers.js';

const lines = (text: string) => text.split('\n');
const names = (text: string, path: string) => writersOf(lines(text), path).map((w) => `${w.name || `(${w.kind} in ${w.enclosing || 'top level'})`}:${w.line}`);

describe('the functions that add to a holder, read from the source (profile/holder-writers.ts)', () => {
  it('finds the function that mutates the variable, not the others that share its scope', () => {
    const source = `const kept = [];
function remember(req) {
  kept.push(req.headers);
}
function count() { return kept.length; }
module.exports = { remember, count };`;
    assert.deepEqual(names(source, 'kept'), ['remember:2']);
  });

  it('reads each way of adding: a Map set, a Set add, an index or property assigned, a string appended', () => {
    const source = `const cache = new Map(); const seen = new Set(); const byId = {}; let log = '';
const put = (k, v) => { cache.set(k, v); };
function mark(x) { seen.add(x); }
function index(r) { byId[r.id] = r; }
function write(line) { log += line; }`;
    assert.deepEqual(names(source, 'cache'), ['put:2']);
    assert.deepEqual(names(source, 'seen'), ['mark:3']);
    assert.deepEqual(names(source, 'byId'), ['index:4']);
    assert.deepEqual(names(source, 'log'), ['write:5']);
  });

  it('a property path: the whole path first, then code that fills it by its last name (a method on this)', () => {
    const source = `class Store {
  constructor() { this.items = new Map(); }
  save(id, value) { this.items.set(id, value); }
}
const app = { locals: { history: [] } };
function track(x) { app.locals.history.push(x); }`;
    assert.deepEqual(names(source, 'store.items'), ['save:3']);
    assert.deepEqual(names(source, 'app.locals.history'), ['track:6']);
    assert.equal(writersOf(lines(source), 'app.locals.history')[0]!.exact, true);
    assert.equal(writersOf(lines(source), 'store.items')[0]!.kind, 'method');
  });

  it('listeners never removed: held in the emitter\'s _events, added by emitter.on in an anonymous handler', () => {
    const source = `import { bus } from './events.mjs';
export function handler(req, res) {
  bus.on('shipped', (id) => res.end(id));
}
app.post('/orders', (req, res) => {
  bus.once('paid', () => {});
});`;
    assert.deepEqual(names(source, 'bus._events.shipped'), ['handler:2']);
    assert.deepEqual(names(source, 'bus._events'), ['handler:2', '(arrow in top level):5']);
    // An exported binding of an ES module is held in a cell without a name: the event alone says which calls.
    assert.deepEqual(names(source, '_events.paid'), ['(arrow in top level):5']);
    assert.deepEqual(names(source, '_events'), []);
  });

  it('nothing for an alias, a read, a path without a variable, or a source that does not parse', () => {
    assert.deepEqual(names('const kept = []; function f(x) { const list = kept; list.push(x); }', 'kept'), []);
    assert.deepEqual(names('const kept = []; function f() { return kept.map((x) => x); }', 'kept'), []);
    assert.deepEqual(names('let x: number = 1; kept.push(x)', 'kept'), []);
  });

  it('names a holder filled from another own file: the variable\'s script has no writer, the class\'s file has it', () => {
    const files: Record<string, string> = {
      '/srv/app.js': "const { Store } = require('./store');\nconst store = new Store();\napp.get('/', (req) => store.save(req.id, req.headers));",
      '/srv/store.js': 'class Store {\n  constructor() { this.items = new Map(); }\n  save(id, v) { this.items.set(id, v); }\n}\nmodule.exports = { Store };',
    };
    const sources = (url: string) => (url in files ? lines(files[url]!) : null);
    const [named] = nameHolders([{ kept: 'Object', count: 10, size: 560, path: 'store.items', holder: 'Map', script: '/srv/app.js' }], sources, '/srv', ['/srv/app.js', '/srv/store.js']);
    assert.equal(named!.file, 'app.js');
    assert.deepEqual(named!.writers.map((w) => [w.name, w.file, w.line, w.endLine, w.category]), [['save', 'store.js', 3, 3, 'own']]);
    // A single variable is looked for in its own script only: another file's "kept" is another variable.
    const [single] = nameHolders([{ kept: 'Object', count: 1, size: 56, path: 'items', holder: 'Array', script: '/srv/app.js' }], sources, '/srv', ['/srv/store.js']);
    assert.deepEqual(single!.writers, []);
  });

  it('reads no file outside the service\'s own code, whatever script name head\'s heap gives', () => {
    const read: string[] = [];
    const sources = (url: string) => {
      read.push(url);
      return lines('const kept = []; function f(x) { kept.push(x); }');
    };
    const holder = { kept: 'Object', count: 1, size: 56, holder: 'Array' };
    const named = nameHolders(
      [
        { ...holder, path: 'kept', script: '/home/runner/.credentials.js' },
        { ...holder, path: 'kept', script: '/srv/node_modules/lib/index.js' },
        { ...holder, path: 'cache.kept', script: null },
      ],
      sources,
      '/srv',
      ['/etc/passwd.js', 'file:///srv/server.js'],
    );
    assert.deepEqual(read, ['file:///srv/server.js']);
    assert.deepEqual(named.map((h) => h.writers.map((w) => w.file)), [[], [], ['server.js']]);
    // The engine's sources for a side: its tree and Node core, nothing else a profile may name.
    read.length = 0;
    const tree = insideTree(sources, '/srv');
    for (const url of ['/srv/server.js', 'file:///srv/node_modules/x/i.js', 'node:events', '/srv-other/a.js', '/home/runner/.credentials.js', 'file:///etc/x.js', 'evalmachine.<anonymous>']) tree(url);
    assert.deepEqual(read, ['/srv/server.js', 'file:///srv/node_modules/x/i.js', 'node:events']);
  });
});

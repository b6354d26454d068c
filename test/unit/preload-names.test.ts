import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const { sqlName, pathTemplate } = createRequire(import.meta.url)('../../src/preload/health.cjs') as {
  sqlName: (text: unknown, backslashEscapes?: boolean) => string;
  pathTemplate: (path: string) => string;
};

test('a SQL statement is named without its literals, so one statement with different values is one name', () => {
  assert.equal(sqlName("SELECT *\n  FROM users WHERE id = 42 AND name = 'O''Brien' AND t2.x > -1.5"), 'SELECT * FROM users WHERE id = ? AND name = ? AND t2.x > ?');
  assert.equal(sqlName('SELECT * FROM users WHERE id = $1 LIMIT 10'), 'SELECT * FROM users WHERE id = $1 LIMIT ?', 'placeholders stay');
  assert.equal(sqlName(`SELECT ${'x, '.repeat(200)}1`).length, 160, 'long statements are cut');
  assert.equal(sqlName(undefined), 'query');
});

test("MySQL's strings, where a backslash escapes a quote, are one literal each: mysql2's query puts its values in the text", () => {
  // What mysql2 3.24's query sends for ('… name = ? OR name = ? AND id = ?', ["it's", 'C:\\', 7])
  const text = "SELECT id FROM users WHERE name = 'it\\'s' OR name = 'C:\\\\' AND id = 7";
  assert.equal(sqlName(text, true), 'SELECT id FROM users WHERE name = ? OR name = ? AND id = ?');
  assert.equal(sqlName("SELECT 'a''b', 'c\\nd'", true), 'SELECT ?, ?', "a doubled quote and an escaped letter too");
  assert.notEqual(sqlName(text), sqlName(text, true), 'standard SQL has no backslash escapes: its rule misreads this text');
});

test('a URL path is named as a template: no query string, ids as :id', () => {
  assert.equal(pathTemplate('/users/42/orders?page=2'), '/users/:id/orders');
  assert.equal(pathTemplate('/items/3f2a1c9e-7b4d-4e8f-9a6b-0c1d2e3f4a5b'), '/items/:id');
  assert.equal(pathTemplate('/v1/health'), '/v1/health', 'a short word with a digit stays');
});

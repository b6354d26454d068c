#!/usr/bin/env node
// Fails when a source file in src/ is over 600 lines, or a function in it over 100 lines (from
// its first line to its closing brace, comments and blank lines included: what a reader scrolls
// through). A file or a function that long holds more than one job, and the next reader has to
// find which. Biome's noExcessiveLinesPerFunction counts fewer lines (it leaves some out), so
// the span is measured here with TypeScript's parser.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 100;

/** Every function, method, arrow function and accessor with a body longer than the limit. */
function longFunctions(file, text) {
  const kind = file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const long = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const [first, last] = [lineOf(node.getStart(source)), lineOf(node.end)];
      const name = node.name ? node.name.getText(source) : '(anonymous function)';
      if (last - first + 1 > MAX_FUNCTION_LINES) long.push(`${file}:${first}: ${name} is ${last - first + 1} lines (at most ${MAX_FUNCTION_LINES}): split it by job`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

const problems = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.(ts|cjs|mjs|js)$/.test(f))
  .flatMap((f) => {
    const file = join('src', f);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - 1;
    return [...(lines > MAX_FILE_LINES ? [`${file}: ${lines} lines (at most ${MAX_FILE_LINES}): split it by job`] : []), ...longFunctions(file, text)];
  });
for (const problem of problems) console.error(problem);
process.exit(problems.length ? 1 : 0);

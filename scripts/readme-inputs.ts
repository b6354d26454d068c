#!/usr/bin/env -S npx tsx
/**
 * Writes the action's input and output tables into docs/action.md from action.yml, between the
 * markers below, so the docs never disagree with what the action accepts.
 * `npm run readme` rewrites docs/action.md; test/unit/readme-inputs.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const START_MARKER = '<!-- action-inputs:start (generated from action.yml by npm run readme) -->';
export const END_MARKER = '<!-- action-inputs:end -->';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** The page that holds the tables. */
export const ACTION_PAGE = join('docs', 'action.md');

interface ActionYml {
  inputs?: Record<string, { description?: string; default?: unknown; required?: boolean }>;
  outputs?: Record<string, { description?: string }>;
}

/** A table cell: one line, pipes escaped (a pipe would end the cell). */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

function code(text: string): string {
  return `\`${text.replace(/\|/g, '\\|')}\``;
}

export function renderActionTables(actionYml: string): string {
  const action = parse(actionYml) as ActionYml;
  const inputs = Object.entries(action.inputs ?? {}).map(([name, input]) => {
    const fallback = input.default === undefined || input.default === '' ? '' : code(String(input.default));
    return `| ${code(name)} | ${fallback} | ${cell(input.description ?? '')} |`;
  });
  const outputs = Object.entries(action.outputs ?? {}).map(([name, output]) => `| ${code(name)} | ${cell(output.description ?? '')} |`);
  return [
    '| input | default | description |',
    '| --- | --- | --- |',
    ...inputs,
    '',
    '| output | description |',
    '| --- | --- |',
    ...outputs,
  ].join('\n');
}

/** The page with the generated tables between the markers; throws when the markers are missing. */
export function updateReadme(readme: string, tables: string): string {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`${ACTION_PAGE} needs the markers ${START_MARKER} and ${END_MARKER}`);
  return `${readme.slice(0, start + START_MARKER.length)}\n${tables}\n${readme.slice(end)}`;
}

export function freshReadme(): { current: string; fresh: string } {
  const current = readFileSync(join(root, ACTION_PAGE), 'utf8');
  return { current, fresh: updateReadme(current, renderActionTables(readFileSync(join(root, 'action.yml'), 'utf8'))) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { current, fresh } = freshReadme();
  if (current !== fresh) writeFileSync(join(root, ACTION_PAGE), fresh);
  console.log(current === fresh ? `${ACTION_PAGE} is up to date` : `${ACTION_PAGE}: action inputs and outputs rewritten from action.yml`);
}

// Every relative link of README.md and docs/*.md reaches a file that exists and, with a #fragment,
// a heading of that file, as GitHub renders it: pages moved between files must not leave dead links.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/repo.js';

/** GitHub's heading anchor: lower case, punctuation and symbols dropped, spaces to hyphens; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of markdown.matchAll(/<a (?:name|id)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/** The inline links of a markdown text, outside code blocks and code spans. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

test('README.md and docs/*.md: every relative link and #fragment reaches its target', () => {
  const dead: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const link of linksOf(text)) {
      if (/^[a-z]+:/i.test(link)) continue; // https:, mailto:
      const [path, fragment] = link.split('#') as [string, string | undefined];
      const target = path ? join(ROOT, dirname(page), decodeURI(path)) : join(ROOT, page);
      if (!existsSync(target)) {
        dead.push(`${page}: ${link} (no ${relative(ROOT, target)})`);
        continue;
      }
      if (fragment && statSync(target).isFile() && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(fragment)) {
        dead.push(`${page}: ${link} (no heading #${fragment} in ${relative(ROOT, target)})`);
      }
    }
  }
  assert.deepEqual(dead, []);
});

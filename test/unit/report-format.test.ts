import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeMarkdown, formatMetricName, formatValue, repositoryFileUrl, sanitizeText } from '../../src/report/format.js';
import { formatChange, formatCount, formatDurationUs, formatInterval, formatPercent, formatRate, truncate } from '../../src/stats/format.js';

const ZWJ = '\u200D';

describe('formatRate', () => {
  it('uses three significant digits and k/M units', () => {
    assert.equal(formatRate(28_400), '28.4k/s');
    assert.equal(formatRate(950), '950/s');
    assert.equal(formatRate(1_234_567), '1.23M/s');
    assert.equal(formatRate(12.34), '12.3/s');
    assert.equal(formatRate(0), '0/s');
  });

  it('moves to the next unit when rounding reaches it', () => {
    assert.equal(formatRate(999.7), '1k/s');
    assert.equal(formatRate(999.4), '999/s');
    assert.equal(formatRate(999_800), '1M/s');
  });

  it('says n/a for non-finite values', () => {
    assert.equal(formatRate(Number.NaN), 'n/a');
    assert.equal(formatRate(Number.POSITIVE_INFINITY), 'n/a');
  });
});

describe('formatDurationUs', () => {
  it('picks µs, ms or s', () => {
    assert.equal(formatDurationUs(850), '850 µs');
    assert.equal(formatDurationUs(1210), '1.21 ms');
    assert.equal(formatDurationUs(2_500_000), '2.5 s');
    assert.equal(formatDurationUs(35.2), '35.2 µs');
    assert.equal(formatDurationUs(999.8), '1 ms');
  });
});

describe('formatChange', () => {
  it('signs with a real minus sign (U+2212) and one decimal below 100%', () => {
    assert.equal(formatChange(-0.1224), '−12.2%');
    assert.equal(formatChange(-0.1224).codePointAt(0), 0x2212);
    assert.equal(formatChange(0.031), '+3.1%');
  });

  it('drops decimals and groups thousands from 100% on', () => {
    assert.equal(formatChange(39.49), '+3,949%');
    assert.equal(formatChange(0.9996), '+100%');
  });

  it('gives no sign to a change that rounds to zero', () => {
    assert.equal(formatChange(-0.0004), '0.0%');
    assert.equal(formatChange(0), '0.0%');
  });
});

describe('formatInterval', () => {
  it('prints both ends with the same decimals', () => {
    assert.equal(formatInterval(-0.14, -0.101), '(−14.0 … −10.1)');
    assert.equal(formatInterval(-0.5, 1.5), '(−50 … +150)');
    assert.equal(formatInterval(-0.02, 0.001), '(−2.0 … +0.1)');
  });

  it('says n/a when an end is missing', () => {
    assert.equal(formatInterval(Number.NaN, 0.1), '(n/a)');
  });
});

describe('formatPercent, formatCount, truncate', () => {
  it('formats limits without needless decimals', () => {
    assert.equal(formatPercent(0.05), '5%');
    assert.equal(formatPercent(0.025), '2.5%');
    assert.equal(formatPercent(0.15), '15%');
  });

  it('groups counts', () => {
    assert.equal(formatCount(1234567), '1,234,567');
  });

  it('truncates by code points with an ellipsis', () => {
    assert.equal(truncate('abcdef', 4), 'abc…');
    assert.equal(truncate('abc', 4), 'abc');
  });
});

describe('formatMetricName and formatValue', () => {
  it('names every metric', () => {
    assert.equal(formatMetricName('throughput'), 'throughput');
    assert.equal(formatMetricName('latency_p99'), 'latency p99');
    assert.equal(formatMetricName('cpu_per_request'), 'CPU / request');
  });

  it('uses each metric’s unit', () => {
    assert.equal(formatValue('throughput', 24_930), '24.9k/s');
    assert.equal(formatValue('latency_p99', 1440), '1.44 ms');
    assert.equal(formatValue('cpu_per_request', 35), '35 µs');
  });
});

describe('escapeMarkdown', () => {
  const hostile = '<img src=x onerror=alert(1)> | @org/team `code`';

  it('turns HTML, pipes and backticks into entities', () => {
    const escaped = escapeMarkdown(hostile);
    assert.equal(escaped, `&lt;img src=x onerror=alert(1)&gt; &#124; @${ZWJ}org/team &#96;code&#96;`);
    assert.doesNotMatch(escaped, /[<>|`]/);
  });

  it('neutralises mentions and issue references with a zero-width joiner', () => {
    assert.equal(escapeMarkdown('@octocat fixes #12'), `@${ZWJ}octocat fixes #${ZWJ}12`);
  });

  it('escapes emphasis, links, strikethrough and math', () => {
    assert.equal(escapeMarkdown('*a* _b_ [c](d) ~e~ $f$ \\'), '\\*a\\* \\_b\\_ \\[c\\](d) \\~e\\~ \\$f\\$ \\\\');
  });

  it('escapes & first, so entities it writes are not escaped twice', () => {
    assert.equal(escapeMarkdown('a&b<c'), 'a&amp;b&lt;c');
  });

  it('keeps the text on one line', () => {
    assert.equal(escapeMarkdown('one\ntwo\r\nthree\n    at frame'), 'one two three at frame');
  });

  it('breaks every GitHub autolink: URLs, www., e-mail, GH-123, #123, @team', () => {
    const probes: [string, string][] = [
      ['see https://evil.example/x', `see https:${ZWJ}//evil.example/x`],
      ['file:///repo/a.js', `file:${ZWJ}///repo/a.js`],
      ['www.evil.example', `www${ZWJ}.evil.example`],
      ['(WWW.evil.example)', `(WWW${ZWJ}.evil.example)`],
      ['_www.evil.example_', `\\_www${ZWJ}.evil.example\\_`],
      ['fixes GH-123', `fixes GH${ZWJ}-123`],
      ['acme/shop#12', `acme/shop#${ZWJ}12`],
      ['mail me@evil.example', `mail me@${ZWJ}evil.example`],
      ['@acme/admins', `@${ZWJ}acme/admins`],
    ];
    for (const [text, escaped] of probes) assert.equal(escapeMarkdown(text), escaped, text);
  });

  it('removes zero-width, invisible and bidirectional characters before adding its own joiners', () => {
    const invisible = ['\u200B', '\u200C', '\u200D', '\u200E', '\u200F', '\u2060', '\u2066', '\u2069', '\uFEFF', '\u00AD', '\u202E', '\u{E0041}'];
    for (const c of invisible) assert.equal(escapeMarkdown(`a${c}b`), 'ab', `U+${c.codePointAt(0)!.toString(16)}`);
    // A joiner smuggled into a mention does not survive as the only separator: ours is added after '@'.
    assert.equal(escapeMarkdown('@\u200Dorg'), `@${ZWJ}org`);
    assert.equal(escapeMarkdown('htt\u200Bps://x'), `https:${ZWJ}//x`);
  });
});

describe('sanitizeText', () => {
  it('removes control characters, ANSI escapes, bidi overrides and invisible characters', () => {
    assert.equal(sanitizeText('pay\u200Bpal\u2067'), 'paypal');
    assert.equal(sanitizeText('a\x1b[31mred\x1b[39m\u202Eb\tc\nd'), 'a[31mred[39mb c d');
  });

  it('removes every format and control character and every ignorable code point, by property: none is left to a hand list', () => {
    // Each range whole: musical beams and shorthand controls (Cf), unassigned tag-plane code points, Hangul fillers.
    const ranges: [number, number][] = [[0x1d173, 0x1d17a], [0x1bca0, 0x1bca3], [0xe0000, 0xe0fff], [0x80, 0x9f], [0x0, 0x8], [0x600, 0x605], [0x110bd, 0x110bd], [0x115f, 0x1160]];
    for (const [from, to] of ranges) {
      for (let cp = from; cp <= to; cp++) assert.equal(sanitizeText(`a${String.fromCodePoint(cp)}b`), 'ab', `U+${cp.toString(16)}`);
    }
    assert.equal(sanitizeText('a\uD800b\uDFFFc'), 'abc', 'lone surrogates');
    assert.equal(sanitizeText('x\uFE01\uFE02y'), 'xy', 'variation selectors that carry no emoji presentation');
  });

  it('keeps what readers need: emoji with their presentation selector once, letters of every script', () => {
    assert.equal(sanitizeText('ok ✔\uFE0F'), 'ok ✔\uFE0F');
    assert.equal(sanitizeText('✔\uFE0F\uFE0F\uFE0E\uFE0F'), '✔\uFE0F', 'a run of selectors cannot carry hidden bits');
    assert.equal(sanitizeText('café 数据 مرحبا'), 'café 数据 مرحبا');
  });
});

describe('repositoryFileUrl', () => {
  const repo = 'https://github.com/acme/shop';
  const sha = 'b'.repeat(40);

  it('links a line of a file at the commit', () => {
    assert.equal(repositoryFileUrl(repo, sha, 'src/a b.js', 10), `${repo}/blob/${sha}/src/a%20b.js#L10`);
  });

  it('never leaves the repository at that commit, whatever the path or sha a results file holds', () => {
    const paths = ['../../../../evil/repo/blob/main/x.js', 'src/../../../../evil', './src/a.js', 'src//a.js', '/etc/passwd', '..', 'src/%2e%2e/%2e%2e/x'];
    for (const path of paths) {
      const url = repositoryFileUrl(repo, sha, path, 1);
      assert.ok(url === null || url.startsWith(`${repo}/blob/${sha}/`), `${path} → ${url}`);
      if (url !== null) assert.ok(!new URL(url).pathname.split('/').includes('..'), url);
    }
    assert.equal(repositoryFileUrl(repo, sha, '../../../../evil/repo/x.js', 1), null);
    for (const bad of ['..', '../../evil', 'main', `${sha}/../..`, sha.toUpperCase()]) assert.equal(repositoryFileUrl(repo, bad, 'src/a.js', 1), null, bad);
  });
});

// The sign-flip (Fisher–Pitman) test against Fisher's own worked example, exact binomial counts,
// and brute-force enumeration of every sign pattern.
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { createRandom, normalCdf, rankAbsolute, signedRankCdf, signFlipTest } from '../../src/stats/index.js';
import { studentizedAgreement } from '../../src/stats/sign-flip.js';

type Alternative = 'less' | 'greater' | 'two-sided';

/** Every one of the 2^n sign patterns, counted one by one. */
function bruteForce(x: number[], alternative: Alternative): number {
  const observed = x.reduce((a, b) => a + b, 0);
  const tol = 1e-9 * x.reduce((a, b) => a + Math.abs(b), 0);
  let count = 0;
  for (let mask = 0; mask < 2 ** x.length; mask++) {
    let sum = 0;
    for (let i = 0; i < x.length; i++) sum += (mask >> i) & 1 ? -x[i]! : x[i]!;
    if (alternative === 'less' ? sum <= observed + tol : alternative === 'greater' ? sum >= observed - tol : Math.abs(sum) >= Math.abs(observed) - tol) count++;
  }
  return Math.abs(observed) <= tol && alternative === 'two-sided' ? 1 : count / 2 ** x.length;
}

function binomialTail(n: number, k: number): number {
  let c = 1;
  let sum = 0;
  for (let j = 0; j <= k; j++) {
    sum += c;
    c = (c * (n - j)) / (j + 1);
  }
  return sum / 2 ** n;
}

describe('signFlipTest', () => {
  it("reproduces Fisher's randomization test on Darwin's Zea mays pairs (863 and 1,726 of 32,768)", () => {
    // Differences crossed − self-fertilised, in eighths of an inch (Fisher 1935, §17 and §21).
    const darwin = [49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48];
    assert.equal(signFlipTest(darwin, { alternative: 'greater' }).p, 863 / 32768);
    assert.equal(signFlipTest(darwin).p, 1726 / 32768);
    assert.equal(signFlipTest(darwin, { alternative: 'greater' }).statistic, 314);
  });

  it('equals brute-force enumeration, with ties, zeros and both signs, for every alternative', () => {
    const rand = createRandom(11);
    for (let trial = 0; trial < 60; trial++) {
      const n = 1 + Math.floor(rand() * 14);
      const shift = (rand() - 0.5) * 0.06;
      const x = Array.from({ length: n }, () => {
        const r = rand();
        if (r < 0.1) return 0;
        if (r < 0.2) return 0.01; // ties
        return shift + (rand() - 0.5) * 0.1;
      });
      for (const alternative of ['less', 'greater', 'two-sided'] as const) {
        const got = signFlipTest(x, { alternative });
        assert.equal(got.method, 'exact');
        assert.ok(Math.abs(got.p - bruteForce(x, alternative)) < 1e-12, `${alternative} ${JSON.stringify(x)}: ${got.p} vs ${bruteForce(x, alternative)}`);
      }
    }
  });

  it('counts exactly up to 30 values (binomial tails of equal values)', () => {
    // Thirty values of size 1, two of them negative: the sum is 26, and a pattern reaches it only
    // with at most two negatives.
    const x = [...Array(28).fill(1), -1, -1];
    assert.equal(signFlipTest(x, { alternative: 'greater' }).p, binomialTail(30, 2));
    assert.equal(signFlipTest(x, { alternative: 'less' }).p, 1 - binomialTail(30, 1));
    assert.equal(signFlipTest(Array(30).fill(-0.02), { alternative: 'less' }).p, 2 ** -30);
    assert.equal(signFlipTest(x).method, 'exact');
    assert.equal(signFlipTest([...x, 1]).method, 'monte-carlo');
  });

  it('above 30 values samples 200,000 patterns, the same for the same input, near the normal limit', () => {
    const rand = createRandom(5);
    const x = Array.from({ length: 60 }, () => 0.004 + (rand() - 0.5) * 0.05);
    const first = signFlipTest(x, { alternative: 'greater' });
    assert.equal(first.method, 'monte-carlo');
    assert.equal(signFlipTest(x, { alternative: 'greater' }).p, first.p);
    // The sum over random signs has mean 0 and variance Σx² (Pitman 1937): its normal limit.
    const normal = 1 - normalCdf(first.statistic / Math.sqrt(x.reduce((a, b) => a + b * b, 0)));
    assert.ok(Math.abs(first.p - normal) < 0.01, `${first.p} vs normal ${normal}`);
    // Never zero: the observed pattern counts.
    assert.equal(signFlipTest(Array(60).fill(0.01), { alternative: 'greater' }).p, 1 / 200_001);
  });

  it('one opposing start of middling size does not veto a drop that the others all show (the signed-rank test it replaced could not reject)', () => {
    // Eleven start pairs from −3% to −6%, one at +5% whose size ranks 6th of 12; the level is what
    // Holm leaves the smallest of three gated p-values at alpha 0.01.
    const starts = [-0.031, -0.045, -0.052, -0.038, -0.061, -0.049, -0.055, -0.04, -0.058, -0.047, -0.05, 0.05].map(Math.log1p);
    const level = 0.01 / 3;
    assert.ok(signFlipTest(starts, { alternative: 'less' }).p < level);
    // The signed-rank p: P(V ≤ v) for V the rank sum of the positive values (here the +5%, rank 6).
    const { ranks } = rankAbsolute(starts);
    const v = starts.reduce((sum, x, i) => sum + (x > 0 ? ranks[i]! : 0), 0);
    assert.equal(v, 6);
    assert.ok(signedRankCdf(v, starts.length) > level);
  });

  it('mirroring x swaps the one-sided p-values and keeps the two-sided one', () => {
    const x = [0.03, -0.01, 0.02, 0.05, -0.02, 0.04, 0.01];
    const mirrored = x.map((v) => -v);
    assert.equal(signFlipTest(mirrored, { alternative: 'less' }).p, signFlipTest(x, { alternative: 'greater' }).p);
    assert.equal(signFlipTest(mirrored).p, signFlipTest(x).p);
  });

  it('n = 0 gives p = 1; all zeros give p = 1; non-finite input is an error', () => {
    assert.equal(signFlipTest([]).p, 1);
    assert.equal(signFlipTest([0, 0, 0]).p, 1);
    assert.equal(signFlipTest([0, 0, 0], { alternative: 'less' }).p, 1);
    assert.throws(() => signFlipTest([1, Number.NaN]), RangeError);
  });
});

test('studentizedAgreement: only where every value lies on the alternative side, the t statistic ranks how far', () => {
  const tight = [-0.31, -0.29, -0.3, -0.32, -0.28, -0.3, -0.31, -0.29];
  const p = studentizedAgreement(tight, 'less')!;
  // t = 0.3 / (0.0131 / √8) ≈ 65 on 7 degrees of freedom
  assert.ok(p > 0 && p < 1e-9, String(p));
  assert.equal(studentizedAgreement(tight, 'greater'), null);
  assert.equal(studentizedAgreement([...tight.slice(1), 0.01], 'less'), null);
  // all slower, but from 0.1% to 5%: no better than the sign-flip test's 1/256
  const spread = [-0.001, -0.05, -0.004, -0.03, -0.002, -0.045, -0.01, -0.02];
  assert.ok(studentizedAgreement(spread, 'less')! > 2 ** -8);
  assert.equal(studentizedAgreement([-0.1], 'less'), null);
  assert.equal(studentizedAgreement([-0.5, -0.5, -0.5], 'less'), 0);
});

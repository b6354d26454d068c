// The two-sample shift (src/stats/rank-sum.ts) against reference values computed independently
// (test/reference/rank-sum-reference.py: scipy's Mann–Whitney p, R's wilcox.test.R interval code
// transcribed, the exact null distribution by enumeration), and R's published ?wilcox.test example.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { rankSumCdf, rankSumQuantile, rankSumTest, shiftEstimate, shiftInterval } from '../../src/stats/index.js';

interface Case {
  name: string;
  x: number[];
  y: number[];
  estimate: number;
  method: 'exact' | 'normal';
  ci: { confidence: number; lower: number; upper: number; achieved: number }[];
  pGreater: number;
  pLess: number;
}
const reference = JSON.parse(readFileSync(new URL('../reference/rank-sum-reference.json', import.meta.url), 'utf8')) as { cases: Case[] };

describe('two-sample Hodges–Lehmann shift and rank-sum test match the references', () => {
  for (const c of reference.cases) {
    it(c.name, () => {
      // The normal branch's reference comes from a root finder with tolerance 1e-4 (R's uniroot's).
      const tolerance = c.method === 'exact' ? 1e-12 : 2e-4;
      assert.ok(Math.abs(shiftEstimate(c.x, c.y) - c.estimate) < 1e-12);
      for (const e of c.ci) {
        const got = shiftInterval(c.x, c.y, e.confidence);
        assert.equal(got.method, c.method);
        assert.ok(Math.abs(got.lower - e.lower) < tolerance, `lower ${got.lower} vs ${e.lower} @ ${e.confidence}`);
        assert.ok(Math.abs(got.upper - e.upper) < tolerance, `upper ${got.upper} vs ${e.upper} @ ${e.confidence}`);
        assert.ok(Math.abs(got.confidence - e.achieved) < 1e-9, `confidence ${got.confidence} vs ${e.achieved}`);
      }
      assert.ok(Math.abs(rankSumTest(c.x, c.y, 'greater').p - c.pGreater) < 1e-9);
      assert.ok(Math.abs(rankSumTest(c.x, c.y, 'less').p - c.pLess) < 1e-9);
    });
  }

  it("R's ?wilcox.test example: W = 35, p = 0.1272 (Hollander & Wolfe 1973, p. 110)", () => {
    const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
    const y = [1.15, 0.88, 0.9, 0.74, 1.21];
    const test = rankSumTest(y, x, 'greater');
    assert.equal(test.u, 35);
    assert.equal(Number(test.p.toFixed(4)), 0.1272);
  });

  it('the exact null distribution is symmetric and its quantile inverts its cdf', () => {
    for (const [m, n] of [[4, 7], [12, 12], [30, 20]] as const) {
      for (const u of [0, 3, 17, Math.floor((m * n) / 2)]) {
        assert.ok(Math.abs(rankSumCdf(u, m, n) - (1 - rankSumCdf(m * n - u - 1, m, n))) < 1e-12);
      }
      const q = rankSumQuantile(0.025, m, n);
      assert.ok(rankSumCdf(q, m, n) >= 0.025 - 1e-12 && rankSumCdf(q - 1, m, n) < 0.025);
    }
  });

  it('a clear shift is found with an interval that holds it, and the test calls it', () => {
    const base = [0.01, -0.02, 0.015, 0.0, -0.01, 0.02, -0.005, 0.012];
    const head = base.map((v) => v + 0.1);
    const interval = shiftInterval(base, head);
    assert.ok(interval.lower <= 0.1 && interval.upper >= 0.1 && Math.abs(interval.estimate - 0.1) < 1e-12);
    assert.ok(rankSumTest(base, head, 'greater').p < 0.001);
  });

  it('refuses non-finite values', () => {
    assert.throws(() => shiftInterval([1, Number.NaN], [2]), /finite/);
  });
});

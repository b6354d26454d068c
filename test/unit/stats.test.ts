// Tests for src/stats against reference values computed independently by R
// (test/reference/stats-reference.R → stats-reference.json; R is not needed to run these tests), plus
// property tests.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  createRandom,
  hodgesLehmann,
  hodgesLehmannInterval,
  holmAdjust,
  mean,
  median,
  medianAbsoluteDeviation,
  normalCdf,
  normalQuantile,
  quantile,
  randomSeed,
  shuffle,
  signedRankDistribution,
  signedRankQuantile,
  smallestDetectableShift,
  standardDeviation,
  walshAverages,
  walshOrder,
} from '../../src/stats/index.js';

interface CiReference {
  confidence: number;
  lower: number;
  upper: number;
  lowerDefaultTol: number;
  upperDefaultTol: number;
  reportedConf: number;
  estimate: number;
  achievedConf?: number;
  fullLower?: number;
  fullUpper?: number;
  fullReportedConf?: number;
}
interface WilcoxonReference {
  name: string;
  x: number[];
  nonzero: number;
  zeros: number;
  ties: boolean;
  V: number;
  p: number;
  method: 'exact' | 'normal';
  hl: number;
  ci: CiReference[];
  aRps?: number[];
  bRps?: number[];
}
interface Reference {
  r: string;
  wilcoxon: WilcoxonReference[];
  distribution: { n: number; density: number[]; quantileP: number[]; quantileQ: number[] }[];
  holm: { p: (number | null)[]; adjusted: (number | null)[] }[];
  normal: { cdf: { z: number[]; p: number[] }; quantile: { p: number[]; z: number[] } };
  descriptive: {
    x: number[];
    mean: number;
    median: number;
    sd: number | null;
    mad: number;
    q: number[];
    quantile: number[];
  }[];
  power: { halfWidth: number; confidence: number; alpha: number; power: number; shift: number }[];
}

const ref: Reference = JSON.parse(readFileSync(new URL('../reference/stats-reference.json', import.meta.url), 'utf8'));

/** |actual − expected| ≤ rel·|expected| + abs. */
function assertClose(actual: number, expected: number, rel: number, abs: number, what: string): void {
  const tolerance = rel * Math.abs(expected) + abs;
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `${what}: got ${actual}, expected ${expected} (|diff| ${Math.abs(actual - expected)} > ${tolerance})`,
  );
}

const orNaN = (v: number | null): number => (v === null ? Number.NaN : v);

describe('reference cases (R)', () => {
  it('cover the branches the brief asks for', () => {
    const names = ref.wilcoxon.map((c) => c.name);
    for (const n of [5, 8, 12, 20, 30, 49]) assert.ok(names.includes(`exact-n${n}`));
    for (const n of [50, 60, 120]) assert.ok(names.includes(`normal-n${n}`));
    assert.ok(ref.wilcoxon.some((c) => c.ties && c.zeros === 0));
    assert.ok(ref.wilcoxon.some((c) => c.zeros > 0));
    assert.ok(ref.wilcoxon.some((c) => c.ci.some((e) => e.confidence === 0.9)));
    for (const file of ['slices-aa', 'slices-ab5']) {
      assert.ok(names.includes(`${file}-first20`) && names.includes(`${file}-first100`));
    }
  });
});

describe('hodgesLehmann matches the median of Walsh averages computed by R', () => {
  for (const c of ref.wilcoxon) {
    it(c.name, () => {
      const w = walshAverages(c.x);
      assert.equal(w.length, (c.x.length * (c.x.length + 1)) / 2);
      for (let i = 1; i < w.length; i++) assert.ok(w[i - 1]! <= w[i]!, 'Walsh averages sorted');
      assertClose(hodgesLehmann(c.x), c.hl, 1e-12, 0, `${c.name} HL`);
    });
  }
});

describe('hodgesLehmannInterval matches R wilcox.test(conf.int = TRUE)', () => {
  for (const c of ref.wilcoxon) {
    for (const e of c.ci) {
      it(`${c.name} @ ${e.confidence}`, () => {
        const r = hodgesLehmannInterval(c.x, e.confidence);
        assert.equal(r.method, c.method);
        // Our estimate is always the plain HL estimate (R's too in the exact branch; in the normal
        // branch R reports a root-finding pseudo-median instead, deliberately not matched).
        assert.equal(r.estimate, hodgesLehmann(c.x));
        if (c.method === 'exact') {
          assertClose(r.lower, e.lower, 1e-9, 0, 'lower');
          assertClose(r.upper, e.upper, 1e-9, 0, 'upper');
          assertClose(r.estimate, e.estimate, 1e-9, 0, 'estimate');
          // We report the exact coverage; R reports the requested level unless it is far off, and
          // then a rounded one (exact-n6-unachievable @ 0.99: R says 0.969, the coverage is 0.96875).
          assertClose(r.confidence, e.achievedConf!, 1e-12, 0, 'achieved confidence');
          return;
        }
        // Normal branch. R's bounds come from uniroot; the reference ran it with tol.root = 1e-13,
        // so they are the Walsh averages where the corrected z crosses the quantile, to ~1e-13.
        // With zeros in x we deliberately keep them (see src/stats/hodges-lehmann.ts, difference 2):
        // the reference for that is R's interval of the whole sample (fullLower/fullUpper).
        const lower = e.fullLower ?? e.lower;
        const upper = e.fullUpper ?? e.upper;
        assertClose(r.lower, lower, 1e-6, 1e-12, 'lower');
        assertClose(r.upper, upper, 1e-6, 1e-12, 'upper');
        assertClose(r.confidence, e.fullReportedConf ?? e.reportedConf, 1e-12, 0, 'confidence');
        if (e.fullLower === undefined) {
          // What R users see with the default tol.root = 1e-4: within that tolerance (absolute).
          assertClose(r.lower, e.lowerDefaultTol, 0, 1e-4, 'lower vs R default tol.root');
          assertClose(r.upper, e.upperDefaultTol, 0, 1e-4, 'upper vs R default tol.root');
        }
        // The bounds are Walsh averages exactly.
        const w = walshAverages(c.x);
        assert.ok(w.includes(r.lower) && w.includes(r.upper), 'bounds are Walsh averages');
      });
    }
  }

  it('differs from R only where zeros are dropped by R (documented difference)', () => {
    const withZeros = ref.wilcoxon.filter((c) => c.zeros > 0);
    assert.ok(withZeros.length >= 2);
    let differs = 0;
    for (const c of withZeros) {
      for (const e of c.ci) {
        const r = hodgesLehmannInterval(c.x, e.confidence);
        if (Math.abs(r.lower - e.lower) > 1e-9 || Math.abs(r.upper - e.upper) > 1e-9) differs++;
        // R's own (zero-dropped) interval need not contain the full-sample estimate; ours does.
        assert.ok(r.lower <= r.estimate && r.estimate <= r.upper);
      }
    }
    assert.ok(differs > 0, 'the zero cases exercise the difference');
  });

  it('real data: the JSON inputs are ln(B.rps / A.rps) as computed here', () => {
    for (const c of ref.wilcoxon.filter((k) => k.aRps !== undefined)) {
      for (const [i, v] of c.x.entries()) {
        assertClose(Math.log(c.bRps![i]! / c.aRps![i]!), v, 4e-16, 1e-300, `${c.name}[${i}]`);
      }
    }
  });
});

describe('signed-rank null distribution', () => {
  for (const d of ref.distribution) {
    it(`n = ${d.n} matches R dsignrank and qsignrank`, () => {
      const dist = signedRankDistribution(d.n);
      assert.equal(dist.length, d.density.length);
      for (const [v, p] of dist.entries()) assertClose(p, d.density[v]!, 1e-12, 0, `P(V = ${v})`);
      for (const [i, p] of d.quantileP.entries()) {
        assert.equal(signedRankQuantile(p, d.n), d.quantileQ[i], `qsignrank(${p}, ${d.n})`);
      }
    });
  }

  it('equals brute-force enumeration of all 2^n sign patterns (n = 11)', () => {
    const n = 11;
    const counts = new Array<number>((n * (n + 1)) / 2 + 1).fill(0);
    for (let mask = 0; mask < 1 << n; mask++) {
      let v = 0;
      for (let k = 0; k < n; k++) if (mask & (1 << k)) v += k + 1;
      counts[v]!++;
    }
    const dist = signedRankDistribution(n);
    for (const [v, count] of counts.entries()) assert.equal(dist[v], count / 2 ** n);
  });

  it('returns a copy (callers cannot corrupt the cache)', () => {
    signedRankDistribution(6).fill(7);
    assert.equal(signedRankDistribution(6)[0], 1 / 64);
  });
});

describe('hodgesLehmannInterval edge cases', () => {
  it('rejects non-finite input', () => {
    assert.throws(() => hodgesLehmannInterval([1, Number.NaN]), RangeError);
    assert.throws(() => hodgesLehmannInterval([1, Number.POSITIVE_INFINITY]), RangeError);
  });
});

describe('Holm adjustment matches R p.adjust(p, "holm")', () => {
  ref.holm.forEach((h, k) => {
    it(`vector ${k}`, () => {
      const got = holmAdjust(h.p.map(orNaN));
      got.forEach((v, i) => {
        const expected = orNaN(h.adjusted[i]!);
        if (Number.isNaN(expected)) assert.ok(Number.isNaN(v));
        else assertClose(v, expected, 1e-14, 0, `adjusted[${i}]`);
      });
    });
  });
});

describe('normal distribution matches R pnorm / qnorm', () => {
  it('normalCdf', () => {
    for (const [i, z] of ref.normal.cdf.z.entries()) assertClose(normalCdf(z), ref.normal.cdf.p[i]!, 1e-13, 0, `Φ(${z})`);
    assert.equal(normalCdf(Number.POSITIVE_INFINITY), 1);
    assert.equal(normalCdf(Number.NEGATIVE_INFINITY), 0);
  });
  it('normalQuantile', () => {
    for (const [i, p] of ref.normal.quantile.p.entries()) {
      assertClose(normalQuantile(p), ref.normal.quantile.z[i]!, 1e-13, 0, `Φ⁻¹(${p})`);
    }
    assert.equal(normalQuantile(0), Number.NEGATIVE_INFINITY);
    assert.equal(normalQuantile(1), Number.POSITIVE_INFINITY);
    assert.ok(Number.isNaN(normalQuantile(1.5)));
  });
  it('normalQuantile inverts normalCdf', () => {
    // Upper tails through the lower tail: Φ(5) = 1 − 2.9e-7 has lost digits to rounding next to 1.
    for (const z of [-8, -3.3, -1, -0.1, 0.7, 2]) assertClose(normalQuantile(normalCdf(z)), z, 1e-12, 1e-15, `z = ${z}`);
    for (const z of [5, 9]) assertClose(-normalQuantile(normalCdf(-z)), z, 1e-12, 0, `z = ${z}`);
  });
});

describe('descriptive statistics match R', () => {
  ref.descriptive.forEach((d, k) => {
    it(`vector ${k} (n = ${d.x.length})`, () => {
      const copy = d.x.slice();
      assertClose(mean(d.x), d.mean, 1e-14, 1e-300, 'mean');
      assertClose(median(d.x), d.median, 1e-15, 0, 'median');
      if (d.sd === null) assert.ok(Number.isNaN(standardDeviation(d.x)));
      else assertClose(standardDeviation(d.x), d.sd, 1e-13, 0, 'sd');
      assertClose(medianAbsoluteDeviation(d.x), d.mad, 1e-15, 0, 'mad');
      for (const [i, q] of d.q.entries()) assertClose(quantile(d.x, q), d.quantile[i]!, 1e-15, 0, `quantile ${q}`);
      assert.deepEqual(d.x, copy, 'input not mutated');
    });
  });
  it('empty input gives NaN; q outside [0, 1] throws', () => {
    for (const f of [mean, median, standardDeviation, medianAbsoluteDeviation]) assert.ok(Number.isNaN(f([])));
    assert.ok(Number.isNaN(quantile([], 0.5)));
    assert.throws(() => quantile([1, 2], 1.5), RangeError);
  });
});

describe('smallestDetectableShift', () => {
  ref.power.forEach((k, i) => {
    it(`matches the formula evaluated in R (${i})`, () => {
      const got = smallestDetectableShift(k.halfWidth, { confidence: k.confidence, alpha: k.alpha, power: k.power });
      assertClose(got, k.shift, 1e-13, 0, 'shift');
    });
  });
  it('defaults: 95% interval, α = 0.01, power 0.8 → (2.5758 + 0.8416) / 1.96 × half-width', () => {
    assertClose(smallestDetectableShift(0.02), (0.02 * (2.5758293035489 + 0.8416212335729)) / 1.9599639845401, 1e-12, 0, 'shift');
  });
  it('validates its options', () => {
    assert.throws(() => smallestDetectableShift(0.01, { alpha: 0 }), RangeError);
    assert.throws(() => smallestDetectableShift(-1), RangeError);
  });
});

// ---------------------------------------------------------------------------------------------------
// Property tests (seeded, so deterministic; each can fail if the implementation is wrong).
// ---------------------------------------------------------------------------------------------------

/** Heavy-tailed, one-sided noise like a shared CI machine: normal plus occasional exponential stalls. */
function noisySample(rand: () => number, n: number, shift: number): number[] {
  const gaussian = (): number => normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, rand())));
  return Array.from({ length: n }, () => shift + 0.02 * gaussian() - (rand() < 0.15 ? -Math.log(1 - rand()) * 0.03 : 0));
}

describe('properties', () => {
  it('HL(x + c) = HL(x) + c', () => {
    const rand = createRandom(1);
    for (let rep = 0; rep < 50; rep++) {
      const x = noisySample(rand, 5 + Math.floor(rand() * 80), 0);
      const c = (rand() - 0.5) * 2;
      assertClose(
        hodgesLehmann(x.map((v) => v + c)),
        hodgesLehmann(x) + c,
        0,
        1e-14,
        `rep ${rep}`,
      );
    }
  });

  it('the interval contains the estimate (both branches, ties, zeros)', () => {
    const rand = createRandom(2);
    for (let rep = 0; rep < 120; rep++) {
      const n = 3 + Math.floor(rand() * 118);
      let x = noisySample(rand, n, (rand() - 0.5) * 0.1);
      if (rep % 3 === 1) x = x.map((v) => Math.round(v * 100) / 100); // ties and zeros
      for (const confidence of [0.8, 0.95, 0.99]) {
        const r = hodgesLehmannInterval(x, confidence);
        assert.ok(r.lower <= r.estimate && r.estimate <= r.upper, `rep ${rep} n ${n} ${JSON.stringify(r)}`);
        assert.ok(r.confidence > 0 && r.confidence < 1);
      }
    }
  });

  it('a wider confidence level never gives a narrower interval', () => {
    const rand = createRandom(3);
    for (let rep = 0; rep < 40; rep++) {
      const x = noisySample(rand, 10 + rep * 3, 0.01);
      const narrow = hodgesLehmannInterval(x, 0.9);
      const wide = hodgesLehmannInterval(x, 0.99);
      assert.ok(wide.lower <= narrow.lower && narrow.upper <= wide.upper, `rep ${rep}`);
    }
  });

  it('an interval of a constant-shift sample covers the shift', () => {
    // Noise exactly symmetric about 0: the Walsh averages are symmetric about the shift.
    const rand = createRandom(4);
    for (const n of [8, 30, 60, 121]) {
      const half = noisySample(rand, n >> 1, 0);
      const shift = 0.05;
      const x = [...half.map((e) => shift + e), ...half.map((e) => shift - e), ...(n % 2 ? [shift] : [])];
      const r = hodgesLehmannInterval(x);
      assertClose(r.estimate, shift, 0, 1e-15, `n ${n} estimate`);
      assert.ok(r.lower < shift && shift < r.upper, `n ${n}`);
    }
    // A sample that is the shift exactly.
    assert.deepEqual(hodgesLehmannInterval(new Array(20).fill(0.05)), {
      estimate: 0.05,
      lower: 0.05,
      upper: 0.05,
      confidence: 0.95,
      method: 'normal',
    });
  });

  it('coverage of random shifted samples is near the nominal 95%', () => {
    // 400 seeded samples per size; binomial sd of the coverage is ~1.1%, so ≥ 92% is a 3-sd bound.
    const rand = createRandom(5);
    for (const n of [12, 30, 80]) {
      let covered = 0;
      const shift = -0.03;
      for (let rep = 0; rep < 400; rep++) {
        // Symmetric noise (the interval's assumption): normal with a symmetric heavy tail.
        const x = Array.from({ length: n }, () => {
          const e = normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, rand()))) * 0.02;
          return shift + (rand() < 0.1 ? 4 * e : e);
        });
        const r = hodgesLehmannInterval(x);
        if (r.lower <= shift && shift <= r.upper) covered++;
      }
      assert.ok(covered / 400 >= 0.92 && covered / 400 <= 0.99, `n ${n}: coverage ${covered / 400}`);
    }
  });

  it('Holm: adjusted ≥ raw, ≤ 1, and monotone in the order of the raw p-values', () => {
    const rand = createRandom(7);
    for (let rep = 0; rep < 100; rep++) {
      const p = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => rand() ** 3);
      const adjusted = holmAdjust(p);
      const order = p.map((_, i) => i).sort((a, b) => p[a]! - p[b]!);
      for (let k = 0; k < order.length; k++) {
        const i = order[k]!;
        assert.ok(adjusted[i]! >= p[i]! && adjusted[i]! <= 1);
        if (k > 0) assert.ok(adjusted[i]! >= adjusted[order[k - 1]!]!, `rep ${rep}`);
      }
      assert.equal(holmAdjust([p[0]!])[0], p[0]);
    }
  });

  it('createRandom is deterministic for a seed, differs across seeds, and stays in [0, 1)', () => {
    const a = createRandom(42);
    const b = createRandom(42);
    const c = createRandom(43);
    const xs = Array.from({ length: 1000 }, () => a());
    assert.deepEqual(
      Array.from({ length: 1000 }, () => b()),
      xs,
    );
    const ys = Array.from({ length: 1000 }, () => c());
    assert.notDeepEqual(ys, xs);
    assert.ok(xs.every((v) => v >= 0 && v < 1));
    assertClose(mean(xs), 0.5, 0, 0.03, 'mean of 1000 uniforms');
    const seed = randomSeed();
    assert.ok(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31);
  });

  it('shuffle returns a new permutation, reproducible from the seed', () => {
    const items = Array.from({ length: 50 }, (_, i) => `slice-${i}`);
    const before = items.slice();
    const s1 = shuffle(items, createRandom(9));
    const s2 = shuffle(items, createRandom(9));
    assert.deepEqual(items, before, 'input not mutated');
    assert.notEqual(s1, items);
    assert.deepEqual(s1, s2);
    assert.notDeepEqual(s1, items);
    assert.deepEqual(s1.slice().sort(), items.slice().sort());
    // Every position gets every element about equally often (uniform permutations).
    const rand = createRandom(10);
    const firstCounts = new Array<number>(4).fill(0);
    for (let rep = 0; rep < 4000; rep++) firstCounts[shuffle([0, 1, 2, 3], rand)[0]!]!++;
    for (const count of firstCounts) assert.ok(count > 900 && count < 1100, `${firstCounts}`);
  });

  it('the interval for n = 120 is fast', () => {
    const x = noisySample(createRandom(11), 120, 0);
    const start = performance.now();
    for (let rep = 0; rep < 20; rep++) hodgesLehmannInterval(x);
    assert.ok((performance.now() - start) / 20 < 50, 'under 50 ms per call');
  });
});

describe('Walsh averages above 500 values are selected, never sorted', () => {
  it('gives every order statistic the sorted array gives, with ties, zeros and both signs', () => {
    const rand = createRandom(17);
    for (const n of [501, 777]) {
      const x = Array.from({ length: n }, () => (rand() < 0.1 ? 0.01 : rand() < 0.05 ? 0 : (rand() - 0.45) * 0.1));
      const sorted = walshAverages(x);
      const order = walshOrder(x);
      assert.equal(order.total, sorted.length);
      const ks = [0, 1, sorted.length >> 1, (sorted.length >> 1) - 1, sorted.length - 1, ...Array.from({ length: 40 }, () => Math.floor(rand() * sorted.length))];
      for (const k of ks) assert.equal(order.at(k), sorted[k], `n ${n}, k ${k}`);
      assert.equal(hodgesLehmann(x), median(Array.from(sorted)));
      const interval = hodgesLehmannInterval(x, 0.95);
      assert.ok(sorted.includes(interval.lower) && sorted.includes(interval.upper), 'the bounds are Walsh averages');
    }
  });

  it('costs about n log n: 16,000 start pairs (128 million averages) in seconds, not minutes', () => {
    const rand = createRandom(3);
    const x = Array.from({ length: 16_000 }, () => (rand() - 0.5) * 0.04);
    const started = performance.now();
    const interval = hodgesLehmannInterval(x, 0.95);
    const ms = performance.now() - started;
    assert.ok(interval.lower < interval.estimate && interval.estimate < interval.upper);
    assert.ok(ms < 15_000, `${ms.toFixed(0)} ms`);
  });
});

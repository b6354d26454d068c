// src/stats/change-points.ts against Apache Otava (test/reference/change-points-reference.py →
// change-points-reference.json; Python is not needed to run these tests), plus the Student t tail
// it uses against values scipy gives, and properties of the permutation test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { detectChangePoints, eDivisivePermutation, forwardChange } from '../../src/stats/change-points.js';
import { logGamma, studentTTwoSided } from '../../src/stats/student-t.js';

interface ReferencePoint {
  index: number;
  qhat: number;
  pValue: number;
  meanBefore: number;
  meanAfter: number;
  stdBefore: number;
  stdAfter: number;
}
interface ReferenceCase {
  name: string;
  series: number[];
  firstCandidate: { index: number; qhat: number };
  splitMerge: { windowLength: number; maxPValue: number; minMagnitude: number; points: ReferencePoint[] }[];
  permutation: number[];
}

const reference = JSON.parse(readFileSync(new URL('../reference/change-points-reference.json', import.meta.url), 'utf8')) as {
  generatedWith: string;
  cases: ReferenceCase[];
};

function close(actual: number, expected: number, relative: number, what: string): void {
  const tolerance = Math.max(Math.abs(expected) * relative, 1e-300);
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not within ${relative} of ${expected}`);
}

describe(`change points against ${reference.generatedWith}`, () => {
  for (const c of reference.cases) {
    for (const run of c.splitMerge) {
      it(`${c.name}: window ${run.windowLength}, level ${run.maxPValue}, magnitude ${run.minMagnitude}`, () => {
        const found = detectChangePoints(c.series, run);
        assert.deepEqual(
          found.map((p) => p.index),
          run.points.map((p) => p.index),
        );
        found.forEach((p, i) => {
          const r = run.points[i]!;
          close(p.qhat, r.qhat, 1e-9, `Q̂ at ${p.index}`);
          close(p.pValue, r.pValue, 1e-7, `p at ${p.index}`);
          close(p.meanBefore, r.meanBefore, 1e-12, `mean before ${p.index}`);
          close(p.meanAfter, r.meanAfter, 1e-12, `mean after ${p.index}`);
          close(p.stdBefore, r.stdBefore, 1e-9, `sd before ${p.index}`);
          close(p.stdAfter, r.stdAfter, 1e-9, `sd after ${p.index}`);
        });
      });
    }
    it(`${c.name}: the permutation test finds Otava's points`, () => {
      const found = eDivisivePermutation(c.series, { seed: 7, maxPValue: 0.01, permutations: 199 });
      assert.deepEqual(
        found.map((p) => p.index),
        c.permutation,
      );
    });
  }
});

describe('Student t tail', () => {
  // scipy.stats.t.sf(|t|, df) * 2, scipy 1.16.3.
  const cases: [number, number, number][] = [
    [2.0, 10, 0.07338803477074039],
    [0.5, 3, 0.651447964848151],
    [12.0, 58, 2.3615708349395218e-17],
    [1e-8, 20, 0.9999999921202283],
    [3.5, 1, 0.17717106556580947],
  ];
  for (const [t, df, p] of cases) it(`t = ${t}, ${df} degrees of freedom`, () => close(studentTTwoSided(t, df), p, 1e-9, 'p'));
  it('log Γ of integers and a half', () => {
    close(logGamma(10), Math.log(362880), 1e-14, 'ln 9!');
    close(logGamma(0.5), 0.5 * Math.log(Math.PI), 1e-14, 'ln Γ(1/2)');
  });
});

describe('change points: properties', () => {
  const step = [...Array.from({ length: 20 }, (_, i) => 10 + (i % 3) * 0.1), ...Array.from({ length: 20 }, (_, i) => 12 + (i % 3) * 0.1)];
  it('the same seed gives the same permutation p-values; another seed may not', () => {
    const a = eDivisivePermutation(step, { seed: 1 });
    const b = eDivisivePermutation(step, { seed: 1 });
    assert.deepEqual(a, b);
    assert.deepEqual(
      a.map((p) => p.index),
      [20],
    );
  });
  it('a flat series has no change point, and the step is reported with its size', () => {
    assert.deepEqual(detectChangePoints(Array(30).fill(5)), []);
    const [point] = detectChangePoints(step);
    assert.equal(point!.index, 20);
    close(point!.meanAfter - point!.meanBefore, 2, 1e-12, 'shift');
    close(forwardChange(point!), 2 / point!.meanBefore, 1e-12, 'relative change');
  });
  it('refuses a value that is not a finite number', () => {
    assert.throws(() => detectChangePoints([1, Number.NaN, 2]), /finite/);
  });
});

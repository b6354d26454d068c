// lane: beside — it asserts which function holds the most CPU-profile ticks of one process, a share within the process, not a time.
/**
 * The culprit is the function that did the work, across the shapes such work takes: JSON and
 * other builtins without a frame of their own, a backtracking regex, callbacks of map, flatMap,
 * reduce and sort, async functions, class methods, getters, generators, a function inlined into
 * its caller, a dependency's loop calling back into the service's code, Node core's crypto,
 * Buffer and structuredClone, Error construction. Each shape (test/fixtures/culprit-shapes) is a
 * tiny program run for half a second under V8's CPU profiler, the way the engine profiles a service,
 * on every Node installed here (the one on PATH, perfgate's Node 24, and Node 22 when present in
 * /tmp/node22). The raw profile's line ticks say which function did the work (the premise: it is
 * the shape's declared culprit); perfgate's attribution must name that function, with its file
 * and line. Hit rates over many runs: bench/culprit-shapes.mjs, docs/profiling.md.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeTicks, hit, listShapes, rawAgrees, runShape, type ShapeRun, shapeNodes } from '../helpers/culprit-shapes.js';

/** Runs of a shape before its premise counts as broken: half a second is enough for the work to dominate, but the machine is shared. */
const ATTEMPTS = 3;

/**
 * How long each shape runs: about 450 samples, in which the declared culprit holds 200 to 470
 * and leads the next function by 40 or more (megamorphic-access, the closest) — the shapes'
 * work is gross, so a second's samples would add time, not certainty.
 */
const SHAPE_MS = 500;

for (const node of shapeNodes()) {
  describe(`culprit shapes on ${node.label}`, () => {
    for (const shape of listShapes()) {
      test(`${shape.name}: perfgate names ${shape.expected}`, async () => {
        let run: ShapeRun | null = null;
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          run = await runShape(shape, node.path, SHAPE_MS);
          if (!shape.rawTruth || rawAgrees(run)) break;
        }
        const seen = `raw line ticks: ${describeTicks(run!)}; ${run!.unplaced} of ${run!.samples} samples unplaced`;
        if (shape.rawTruth) {
          assert.ok(rawAgrees(run!), `premise: the raw profile names ${shape.expected} by more than the samples it cannot place, in ${ATTEMPTS} runs (${seen})`);
        }
        assert.ok(hit(run!), `perfgate names ${run!.culprit ?? 'no culprit'}, the work was done by ${shape.rawTruth ? run!.truth : shape.expected} (${seen})`);
      });
    }
  });
}

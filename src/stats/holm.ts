// Holm's step-down adjustment for multiple testing (S. Holm, "A simple sequentially rejective multiple
// test procedure", Scand. J. Statist. 6 (1979) 65–70). It controls the family-wise error rate across
// the gated metrics under any dependence between them (our metrics come from the same slices, so they
// are far from independent), and is uniformly more powerful than Bonferroni.
//
// With the m p-values sorted ascending, p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted values are
//   p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1)·p₍ⱼ₎),
// so that rejecting every hypothesis with p̃ ≤ α is exactly Holm's procedure at level α. This is R's
// p.adjust(p, "holm"), including its treatment of NaN: NaN entries stay NaN and do not count in m.

/** Holm-adjusted p-values, in the order of the input (which is not mutated). */
export function holmAdjust(p: readonly number[]): number[] {
  const out = p.map(() => Number.NaN);
  const present = p.map((_, i) => i).filter((i) => !Number.isNaN(p[i]));
  const m = present.length;
  // Stable sort: equal p-values keep their order (irrelevant to the result, but deterministic).
  present.sort((a, b) => p[a]! - p[b]!);
  let running = 0;
  present.forEach((index, rank) => {
    running = Math.max(running, (m - rank) * p[index]!);
    out[index] = Math.min(1, running);
  });
  return out;
}

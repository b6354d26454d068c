// Pure statistics for perfgate: sign-flip test, Wilcoxon signed-rank distribution, Hodges–Lehmann estimate and interval, Holm
// adjustment, detectable shift, descriptive statistics, the normal distribution, seeded randomness,
// trends within blocks (Theil–Sen slope, seasonal Kendall test), Student's t, and change points in a
// history (E-divisive means).
export * from './change-points.js';
export * from './descriptive.js';
export * from './hodges-lehmann.js';
export * from './holm.js';
export * from './normal.js';
export * from './power.js';
export * from './random.js';
export * from './rank-sum.js';
export * from './sign-flip.js';
export * from './student-t.js';
export * from './trend.js';
export * from './wilcoxon.js';

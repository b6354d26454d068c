export { assessResults, decideVerdict } from './compare.js';
export { MIN_RELIABLE_PAIRS } from './warnings.js';
export { METRIC_DEFINITIONS, type MetricDefinition } from './metrics.js';

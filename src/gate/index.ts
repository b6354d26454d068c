export { compareResults, decideVerdict, MIN_RELIABLE_PAIRS } from './compare.js';
export { METRIC_DEFINITIONS, type MetricDefinition } from './metrics.js';

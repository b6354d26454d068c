/**
 * The rule that applies to one metric of one scenario: the scenario's own (perfgate.yml's
 * `scenarios[].gate`, already merged over the global rule by resolve.ts), else the global one.
 */
import type { GateKey, MetricRule, PerfgateConfig, ScenarioGateKey } from './types.js';

/** The parts of a configuration the rule is read from (a stored results.json config has them too). */
export interface RuleSource {
  gate: Record<GateKey, MetricRule>;
  scenarios: readonly { name: string; gate?: PerfgateConfig['scenarios'][number]['gate'] }[];
}

export function ruleFor(config: RuleSource, scenario: string, metric: ScenarioGateKey): MetricRule {
  return config.scenarios.find((s) => s.name === scenario)?.gate?.[metric] ?? config.gate[metric];
}

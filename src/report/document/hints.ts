/** The service-health hints as document items: a warning or an explanation, about a scenario, in words a developer acts on. Pure. */
import { scenarioLeakCulprit } from '../../assess/read.js';
import type { Assessment } from '../../assess/types.js';
import { describeHint, isWarningHint } from '../health.js';
import { hintCulprit } from './function-words.js';
import type { Item } from './types.js';

/** One item per hint, with the scenario's culprit where the hint names one (a possible leak: what head's heap kept). */
export function hintItems(analysis: Assessment): Item[] {
  return (analysis.health?.hints ?? []).map((h) => ({
    mark: isWarningHint(h) ? 'warn' : 'hint',
    about: h.scenario,
    line: [{ kind: 'text', text: describeHint(h, h.kind === 'possible-leak' ? (scenarioLeakCulprit(analysis, h.scenario)?.text ?? null) : hintCulprit(analysis, h.scenario)) }],
  }));
}

/** The run's warnings as document lines: what each is about, the message, and its code as an aside. Pure. */
import type { Assessment } from '../../assess/types.js';
import type { Line, List } from './types.js';

/** One line per warning, in the Assessment's order: "GET /a: <message> (<code>)". */
export function warningLines(analysis: Pick<Assessment, 'warnings'>): Line[] {
  return analysis.warnings.map((w): Line => {
    const about = w.scenario ?? w.benchmark;
    return [
      ...(about === undefined
        ? []
        : ([
            { kind: 'text', text: about },
            { kind: 'label', text: ': ' },
          ] as const)),
      { kind: 'text', text: w.message },
      { kind: 'label', text: ' ' },
      { kind: 'text', text: w.code, aside: true },
    ];
  });
}

/** The warnings as a titled list; null when there are none. */
export function warningsList(analysis: Pick<Assessment, 'warnings'>): List | null {
  const items = warningLines(analysis);
  return items.length === 0 ? null : { title: 'Warnings', items };
}

/**
 * {name} placeholders in a scenario's request texts (path, header values, body): a column of its
 * values file, or a value an earlier request of its sequence captured. Shared by the schema (which
 * checks that every placeholder has a source) and the engine (which fills them in).
 */

/** `{name}`: a letter or _ first, then letters, digits, _ and -. JSON's `{"a": 1}` never matches (a quote is not a name). */
export const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;

/** The distinct placeholder names in `texts`, in order of first use. */
export function placeholdersIn(...texts: (string | null | undefined)[]): string[] {
  const names = new Set<string>();
  for (const text of texts) {
    if (text) for (const match of text.matchAll(PLACEHOLDER)) names.add(match[1]!);
  }
  return [...names];
}

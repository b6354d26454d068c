/**
 * Text from outside perfgate made safe to print: on one line without invisible characters
 * (sanitizeText, for a terminal), and inert in GitHub markdown (escapeMarkdown, escapeUrl). The
 * printers use it, and so does every builder that puts such text inside perfgate's words. Pure.
 */

/** Inserted after `@` and `#` (and into `://`, `www.`, `GH-`) so GitHub neither pings, links an issue, nor autolinks. */
const ZERO_WIDTH_JOINER = '\u200D';

/**
 * Characters that draw nothing but change how text reads or matches, by Unicode property so no
 * range is missed: controls (Cc), format characters (Cf: zero-width spaces and joiners,
 * bidirectional marks, embeddings, overrides and isolates, Unicode tags, musical and shorthand
 * format controls), lone surrogates (Cs), and every other Default_Ignorable_Code_Point (Hangul
 * fillers, unassigned tag-plane code points, variation selectors). UCD PropList.txt and
 * DerivedCoreProperties.txt. The emoji presentation selectors U+FE0E/U+FE0F stay, one after a
 * character: emoji need them, and a run of them could carry hidden bits.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}]|(?![\uFE0E\uFE0F])\p{Default_Ignorable_Code_Point}/gu;
const REPEATED_PRESENTATION_SELECTOR = /(^|[\uFE0E\uFE0F])[\uFE0E\uFE0F]+/gu;

/**
 * Makes text from outside perfgate safe on one line: a line break (with the indentation around
 * it) and a tab become one space; control characters (ANSI escapes start with one) and
 * invisible characters (which can make text read differently than it is) are removed.
 */
export function sanitizeText(text: string): string {
  return String(text)
    .replace(/[ \t]*(?:\r\n|[\r\n\u2028\u2029])\s*/g, ' ')
    .replace(/\t/g, ' ')
    .replace(INVISIBLE, '')
    .replace(REPEATED_PRESENTATION_SELECTOR, '$1');
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '|': '&#124;',
  '`': '&#96;',
};

/**
 * Makes user-controlled text (scenario names, paths, refs, messages) inert in GitHub markdown,
 * including table cells: no HTML, no table break, no code span, no emphasis or link, no math,
 * no @mention ping, no #123 or GH-123 reference, and no autolink (`https://…`, `www.…`,
 * `user@host`; GFM spec, "Autolinks (extension)"). The result is one line.
 */
export function escapeMarkdown(text: string): string {
  return sanitizeText(text)
    .replace(/[\\*_[\]~$]/g, (c) => `\\${c}`)
    .replace(/[@#]/g, (c) => c + ZERO_WIDTH_JOINER)
    .replace(/:\/\//g, `:${ZERO_WIDTH_JOINER}//`)
    .replace(/(www)\./gi, `$1${ZERO_WIDTH_JOINER}.`)
    .replace(/(GH)-(?=\d)/gi, `$1${ZERO_WIDTH_JOINER}-`)
    .replace(/[&<>|`]/g, (c) => HTML_ENTITIES[c]!);
}

/**
 * A URL perfgate built, made safe as a markdown link target: parentheses (which could end the
 * link early) and anything URL syntax does not allow are percent-encoded.
 */
export function escapeUrl(url: string): string {
  return new URL(url).href.replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'));
}

export {
  escapeMarkdown,
  formatChange,
  formatCount,
  formatDurationUs,
  formatInterval,
  formatMetricName,
  formatOpsPerSec,
  formatPercent,
  formatRate,
  formatValue,
  MINUS,
  sanitizeText,
  truncate,
} from './format.js';
export { type MarkdownOptions, renderMarkdown } from './markdown.js';
export { renderTerminal, type TerminalOptions } from './terminal.js';

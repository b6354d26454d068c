export { type MarkdownOptions, renderMarkdown } from './markdown.js';
export { renderTerminal, type TerminalOptions } from './terminal.js';

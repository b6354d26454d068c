/** Reads back the zip archives the toolkit uploaded (the same reader report mode extracts with). */
export { readZip } from '../../src/github/zip.js';

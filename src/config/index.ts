/** perfgate configuration: perfgate.yml + inputs/flags → a validated `PerfgateConfig`. */
export { ConfigError } from './errors.js';
export {
  DEFAULT_CONFIG_FILE,
  loadConfigFile,
  parseConfigText,
  parseScenarioLine,
  type ResolveConfigInput,
  resolveConfig,
} from './load.js';
export { type ScenarioLine, HTTP_METHODS, type HttpMethod } from './scenario-line.js';
export {
  type ConfigDocument,
  configDocumentSchema,
  configJsonSchema,
  DEFAULT_GATE,
  DEFAULT_HEAP_GROWTH,
  JSON_SCHEMA_ID,
} from './schema.js';
export * from './types.js';

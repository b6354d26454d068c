/** perfgate configuration: perfgate.yml + inputs/flags → a validated `PerfgateConfig`. */
export { DEFAULT_CONFIG_FILE, DEFAULT_GATE, DEFAULT_HEAP_GROWTH } from './defaults.js';
export { ConfigError } from './errors.js';
export { configJsonSchema, JSON_SCHEMA_ID } from './json-schema.js';
export { loadConfigFile, parseConfigText, parseScenarioLine } from './load.js';
export { type ResolveConfigInput, resolveConfig } from './resolve.js';
export { type ConfigDocument, configDocumentSchema } from './schema.js';
export { type ScenarioLine, HTTP_METHODS, type HttpMethod } from './scenario-line.js';
export * from './types.js';

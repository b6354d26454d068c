/**
 * Bumped on any change of the results.json shape that an older reader would misread
 * (results/migrate.ts upgrades older versions). In a file of its own so that reading a file
 * without validating it (the CLI) does not bundle the schema, and the schema needs no types.
 */
export const RESULTS_VERSION = 1;

import { readFileSync } from 'node:fs';

declare const __PERFGATE_VERSION__: string | undefined;

/** Injected by the bundler; read from package.json when running from source. */
export const VERSION: string =
  typeof __PERFGATE_VERSION__ === 'string'
    ? __PERFGATE_VERSION__
    : JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

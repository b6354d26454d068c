/**
 * The most a configuration may ask for. Each bound is far above any real project's setting and
 * low enough that a hostile or mistyped perfgate.yml (a pull request may change it) is refused
 * at once, before it is parsed or planned, instead of holding a runner for hours or days. The
 * schema carries them, so editors see them too.
 */

/** perfgate.yml's size, bytes, checked before the YAML is parsed: a real one is a few kB. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** load.pairs: 10,000 one-second pairs are almost 3 h of load per scenario (the default is 72). */
export const MAX_PAIRS = 10_000;

/**
 * load.blocks: every block restarts both sides, and each look of early-stop adds to the design
 * computed before the run (a few seconds at 30 looks). The default is 3.
 */
export const MAX_BLOCKS = 30;

/** load.instances: every start of a block is up at once, base and head, on the same machine. */
export const MAX_INSTANCES = 16;

/**
 * Measured load of a whole configuration (pairs × slice × scenarios, twice that when
 * alternating), ms: 48 h. The defaults measure 72 s per scenario, so even 200 scenarios are 4 h.
 */
export const MAX_LOAD_MS = 48 * 3_600_000;

/** Scenarios: each is measured on its own for every pair (10 take 10–40 minutes); a matrix of shards splits more. */
export const MAX_SCENARIOS = 200;

/** Requests of one scenario's mix or sequence. */
export const MAX_REQUESTS = 100;

/** The highest fixed rate perSecond accepts, requests per second per side: far above what one generator process sends. */
export const MAX_RATE_PER_SECOND = 100_000;

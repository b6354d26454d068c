import * as core from '@actions/core';
import type { Logger } from '../engine/ports.js';

/** The engine's and the GitHub client's logger, writing to the step log. */
export const actionLogger: Logger = { info: core.info, warn: core.warning, debug: core.debug };

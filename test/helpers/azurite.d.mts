import type { ChildProcess } from 'node:child_process';

/** Starts Azurite; resolves with its process and its blob service's URL once it listens. */
export function startAzurite(): Promise<{ process: ChildProcess; url: string }>;

import type { LoadRun, WindowSample } from '../../src/engine/load/seam.js';

/** `count` windows of `ms` on a load's first target, then the load closed. */
export async function windows(load: LoadRun, count: number, ms: number): Promise<WindowSample[]> {
  const samples: WindowSample[] = [];
  try {
    for (let i = 0; i < count; i++) samples.push((await load.measure(ms))[0]!);
  } finally {
    await load.close();
  }
  return samples;
}

// Waiting for a program of a desktop to be ready: a condition polled while the program lives.
import type { Child } from '../../system/spawner/index.ts';

/** Polls `test` until it holds, the child exits or `ms` pass. */
export async function until(test: () => boolean | Promise<boolean>, child: Child, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if (await test()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

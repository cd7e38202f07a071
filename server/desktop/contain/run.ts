// A short command of the server's own (ip, nft, mount, mkfs) that does not block the event loop while it runs, so that
// a desktop's pieces are made side by side (issue 48), nor forks the server (the spawner does). Its output is dropped;
// its last line of stderr says why it failed.
import { spawnChild } from '../../system/spawner/index.ts';

export type RunOptions = {
  /** Written to its stdin. */
  input?: string;
  /** @default 10_000 */
  timeoutMs?: number;
};

/** Resolves once `command` exited 0; rejects with "<command> <first args> failed: <last stderr line>". */
export function run(command: string, args: string[], { input, timeoutMs = 10_000 }: RunOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(command, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'], detached: false });
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('close', () => clearTimeout(timer));
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    child.stdin?.end(input); // one it never reads is dropped: its exit code tells
    child.once('error', (err) => reject(new Error(`${command} failed: ${err.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) return resolve();
      const why = stderr.trim().split('\n').at(-1) || (signal ? `ended by ${signal}` : `exit ${code}`);
      reject(new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${why}`));
    });
  });
}

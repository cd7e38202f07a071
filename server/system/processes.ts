// Whether a process on this machine runs, read from the kernel: shared by the runner (a neighbour
// server that died) and the desktops (an X server behind a lock file).
import { readFileSync } from 'node:fs';

/** Whether the process runs (a zombie, dead but not yet reaped, does not). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Containers whose init does not reap leave zombies that still answer signal 0.
  const stat = readProc(pid, 'stat');
  return stat === null || !/^\d+ \(.*\) Z/.test(stat);
}

/** /proc/<pid>/stat or cmdline, or null when the process is gone. */
export function readProc(pid: number, name: 'stat' | 'cmdline'): string | null {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'latin1'); // written by the kernel, never planted
  } catch {
    return null;
  }
}

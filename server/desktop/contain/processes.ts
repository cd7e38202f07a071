// The processes of an agent's uid: listed from /proc (by a worker thread, proc-scan.ts), and ended all together when its
// desktop stops, also the ones the desktop started on its own (background jobs), so nothing of it outlives the desktop.
import { readFileSync } from 'node:fs';
import { scanProcesses } from './proc-scan.ts';

/** Live (not zombie) processes whose real, effective or saved uid is `uid`. */
export function processesOf(uid: number): Promise<number[]> {
  return scanProcesses({ uid });
}

/** Live processes with `arg` among their arguments (a helper a killed server left running for a desktop), of all or of `among`. */
export function processesWithArgument(arg: string, among?: number[]): Promise<number[]> {
  return scanProcesses({ arg, among });
}

/**
 * SIGKILLs every process of the uid until none is left (a process may fork while the others die).
 * Only for the per-agent uids of isolated desktops: never for the server's own uid.
 */
export function endProcessesOf(uid: number, rounds = 50): Promise<number> {
  return endProcesses(uid, () => processesOf(uid), rounds);
}

/** SIGKILLs what `list` (processes of `uid`, asked again each round) names until it names none. Never the server's uid. */
export async function endProcesses(uid: number, list: () => Promise<number[]>, rounds = 50): Promise<number> {
  if (uid === 0 || uid === process.getuid?.()) throw new Error(`refusing to end the processes of uid ${uid}`);
  let signalled = 0;
  for (let round = 0; round < rounds; round++) {
    const pids = await list();
    if (!pids.length) return signalled;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        signalled++;
      } catch {}
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return signalled;
}

/** The children of a process (of its main thread, which is all a single-threaded wrapper such as bwrap has). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return []; // gone
  }
}

/** Whether the process runs as `uid` (real uid): a pid read a moment ago may have ended and been reused. */
export function runsAs(pid: number, uid: number): boolean {
  try {
    return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]) === uid;
  } catch {
    return false;
  }
}

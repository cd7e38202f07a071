// The processes of an agent's uid: listed from /proc, and ended all together when its desktop stops, also
// the ones the desktop started on its own (background jobs), so nothing of it outlives the desktop.
// A scan reads /proc a slice at a time: a stop scans every 20 ms until nothing is left, and read at once, each scan
// held the event loop ~1 ms per hundred processes (issue 48). Reading each file asynchronously instead cost more in
// all (four callbacks a file, which the loop then ran back to back).
import { readdirSync, readFileSync } from 'node:fs';

/** Files read before the loop is let go: well under a millisecond. */
const SLICE = 8;

/** Live (not zombie) processes whose real, effective or saved uid is `uid`. */
export function processesOf(uid: number): Promise<number[]> {
  return matching((pid) => {
    // The kernel escapes newlines in the Name line, so a process cannot forge these lines.
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status);
    if (!uids || ![uids[1], uids[2], uids[3]].some((v) => Number(v) === uid)) return false;
    return !/^State:\s+Z/m.test(status); // a zombie is dead already; only its parent can reap it
  });
}

/**
 * Live processes with `arg` among their arguments (a helper a killed server left running for a desktop), of all or
 * of `among`. A command line is read under its process's memory lock, which a process starting or ending holds for
 * milliseconds: where the processes are known (a desktop's), only theirs are read.
 */
export function processesWithArgument(arg: string, among?: number[]): Promise<number[]> {
  return matching((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes(arg), among);
}

/** The processes (other than this one; of `among`, else all) for which `test` holds; one that ends meanwhile does not. */
async function matching(test: (pid: number) => boolean, among?: number[]): Promise<number[]> {
  const all = among ?? readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number);
  const pids = all.filter((pid) => pid !== process.pid);
  const kept: number[] = [];
  for (let i = 0; i < pids.length; i++) {
    if (i % SLICE === SLICE - 1) await new Promise((resolve) => setImmediate(resolve));
    try {
      if (test(pids[i])) kept.push(pids[i]);
    } catch {} // gone meanwhile
  }
  return kept;
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

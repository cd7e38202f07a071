// The processes of one contained desktop, told apart from a later desktop of the same agent (same uid), while
// that one runs, by the network namespace they run in: every program of a desktop enters its namespace first, and only root
// can leave it. Processes in namespaces they made themselves (Chromium's sandboxed children, an agent's own
// `unshare -n`) live in the pid namespace of a bubblewrap process that is in the desktop's namespace; when
// that one is killed, the kernel ends the rest of its pid namespace.
import { stat } from 'node:fs/promises';
import { endProcesses, processesOf } from './processes.ts';

/** Live processes of `uid` in the network namespace `netns` (a file such as /run/netns/<name>). */
export async function processesInNetns(uid: number, netns: string): Promise<number[]> {
  let ns: { dev: number; ino: number };
  try {
    ns = await stat(netns);
  } catch {
    return []; // gone: nothing can be in it any more
  }
  const pids = await processesOf(uid);
  const inside = await Promise.all(pids.map((pid) => stat(`/proc/${pid}/ns/net`).then(
    (st) => st.ino === ns.ino && st.dev === ns.dev,
    () => false, // gone meanwhile
  )));
  return pids.filter((_, i) => inside[i]);
}

/**
 * SIGKILLs the processes of a desktop until none is left: every process of `uid` (jobs it started on its own
 * anywhere included) while no other desktop of the uid runs; only those in `netns` while `othersRun()`, asked
 * again each round (a new start of the same agent may begin meanwhile). Never for the server's own uid.
 */
export function endDesktopProcesses(uid: number, netns: string, othersRun: () => boolean, rounds = 50): Promise<number> {
  return endProcesses(uid, () => (othersRun() ? processesInNetns(uid, netns) : processesOf(uid)), rounds);
}

// A server claims its agents' uid range (AGENT_UID_BASE: agent n runs as base + n, and its network namespace and
// control group are named after that uid) at start, with a lock the kernel drops when the process dies, however it
// dies: an abstract unix socket named after the base. A second server on this machine with the same base would stop
// and remove the first one's desktops' processes and namespaces; it refuses to start instead. Servers in one process
// (tests) share theirs.
import { createServer, type Server } from 'node:net';
import { StartRefused } from '../../system/start-refused.ts';

const held = new Map<number, Server>();

export class UidRangeTaken extends StartRefused {
  constructor(readonly base: number) {
    super(`another Agent Workspace server on this machine uses AGENT_UID_BASE=${base} (its agents' users and network namespaces): `
      + `give each server a range of its own, e.g. AGENT_UID_BASE=${base + 1_000_000}`);
  }
}

export async function claimUidRange(base: number): Promise<void> {
  if (held.has(base)) return;
  const lock = createServer();
  await new Promise<void>((resolve, reject) => {
    lock.once('error', reject);
    lock.listen({ path: `\0agent-workspace-uids-${base}` }, resolve);
  }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'EADDRINUSE' ? new UidRangeTaken(base) : err;
  });
  lock.unref();
  held.set(base, lock);
}

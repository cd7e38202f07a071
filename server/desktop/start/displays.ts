// X display numbers on this machine: which are free, stale locks a killed X server left behind, and the
// Xauthority cookie of a display. /tmp is anyone's to write, so its lock files are read with
// readUntrustedFile and only a live X server started for that display counts as holding it.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { processAlive, readProc } from '../../system/processes.ts';
import { readUntrustedFile } from '../contain/untrusted-file.ts';

export const X_LOCK = (n: number) => `/tmp/.X${n}-lock`;
export const X_SOCKET = (n: number) => `/tmp/.X11-unix/X${n}`;

/**
 * Whether display n is free. A lock whose process is gone (Xvnc killed with SIGKILL leaves
 * /tmp/.X<n>-lock and /tmp/.X11-unix/X<n> behind, and the next start fails with "Server is already active
 * for display n") is removed together with the socket. So is a lock that is not a real X server's: an
 * agent may plant a FIFO, a link, a huge file or the pid of some other process there.
 */
export function claimDisplay(n: number): boolean {
  const lock = X_LOCK(n);
  if (existsSync(lock) || isLink(lock)) {
    const pid = Number(readUntrustedFile(lock, 64)?.trim());
    if (processAlive(pid) && servesDisplay(pid, n)) return false;
    rmSync(lock, { force: true });
    rmSync(X_SOCKET(n), { force: true });
    return true;
  }
  // A socket without a lock belongs to a server started with -nolock: leave it alone.
  return !existsSync(X_SOCKET(n));
}

/** Where X servers put their sockets; made here because an X server that is not root cannot make it right. */
export function ensureSocketDir(): void {
  if (existsSync('/tmp/.X11-unix')) return;
  mkdirSync('/tmp/.X11-unix', { mode: 0o1777 });
  chmodSync('/tmp/.X11-unix', 0o1777);
}

/** An Xauthority file with one MIT-MAGIC-COOKIE-1 for display n, valid from any host name (FamilyWild). */
export function xauthority(display: number): Buffer {
  const field = (b: Buffer) => {
    const len = Buffer.alloc(2);
    len.writeUInt16BE(b.length);
    return Buffer.concat([len, b]);
  };
  const family = Buffer.alloc(2);
  family.writeUInt16BE(0xffff);
  return Buffer.concat([family, field(Buffer.alloc(0)), field(Buffer.from(String(display))), field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(randomBytes(16))]);
}

/** Whether the process was started for display n (its arguments hold ":n", as every X server's do). */
function servesDisplay(pid: number, n: number): boolean {
  const args = readProc(pid, 'cmdline');
  return args !== null && args.split('\0').includes(`:${n}`);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

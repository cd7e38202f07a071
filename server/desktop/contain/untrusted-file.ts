// Reads small files that an agent may have planted (its home, /tmp): without following a link and
// without blocking, and only regular files under a size cap. A FIFO there would otherwise freeze the
// whole server on a plain readFileSync, and a link would make the server read what the agent may not.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** The file's text (latin1), or null when it is missing, not a regular file, a link, or over maxBytes. */
export function readUntrustedFile(path: string, maxBytes = 4096): string | null {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch {
    return null; // missing, a symlink (ELOOP), or not ours to open
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    // Read one byte more than allowed: a file that grows after fstat is still caught.
    const buffer = Buffer.alloc(maxBytes + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return length > maxBytes ? null : buffer.subarray(0, length).toString('latin1');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

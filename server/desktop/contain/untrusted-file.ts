// Reads small files that an agent may have planted (its home, /tmp): without following a link and
// without blocking, and only regular files under a size cap. A FIFO there would otherwise freeze the
// whole server on a plain readFileSync, and a link would make the server read what the agent may not.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';

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

/** A regular file found in an agent's folder. */
export type UntrustedEntry = { name: string; bytes: number; modifiedAt: Date };

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The regular files directly in `dir/folder` (a folder the agent owns, in a folder it does not: its home), at most
 * `max`: the folder is opened without following a link, and its entries are looked at through that open folder
 * (/proc/self/fd), so a folder swapped for a link meanwhile shows nothing of where the link points.
 */
export function listUntrustedFolder(dir: string, folder: string, max = 1000): UntrustedEntry[] {
  const fd = openFolder(dir, folder);
  if (fd === null) return [];
  try {
    const found: UntrustedEntry[] = [];
    for (const name of readdirSync(`/proc/self/fd/${fd}`)) {
      if (found.length >= max) break;
      try {
        const st = lstatSync(`/proc/self/fd/${fd}/${name}`);
        if (st.isFile()) found.push({ name, bytes: st.size, modifiedAt: st.mtime });
      } catch {} // gone meanwhile
    }
    return found;
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens the regular file `name` directly in `dir/folder` for reading, without following a link (the folder's or the
 * file's) and without blocking on a FIFO; its descriptor and size, or null. The caller closes it (a read stream does).
 */
export function openUntrustedFile(dir: string, folder: string, name: string): { fd: number; bytes: number; modifiedAt: Date } | null {
  if (!name || name === '.' || name === '..' || /[/\u0000]/.test(name)) return null;
  const dirFd = openFolder(dir, folder);
  if (dirFd === null) return null;
  let fd: number;
  try {
    fd = openSync(`/proc/self/fd/${dirFd}/${name}`, FLAGS);
  } catch {
    return null;
  } finally {
    closeSync(dirFd);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    return null;
  }
  return { fd, bytes: st.size, modifiedAt: st.mtime };
}

/**
 * The size and time of `dir/parts…` (a path the agent owns below `dir`), or null: each folder on the way is opened
 * without following a link, through the one before, and the last part is looked at without following one either,
 * so a folder swapped for a link shows nothing of where the link points.
 */
export function statUntrusted(dir: string, parts: string[]): { size: number; mtimeMs: number } | null {
  if (!parts.length || parts.some((part) => !part || part === '.' || part === '..' || /[/\u0000]/.test(part))) return null;
  let at = dir;
  const opened: number[] = [];
  try {
    for (const folder of parts.slice(0, -1)) {
      opened.push(openSync(`${at}/${folder}`, DIR_FLAGS));
      at = `/proc/self/fd/${opened.at(-1)}`;
    }
    const st = lstatSync(`${at}/${parts.at(-1)}`);
    return { size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return null; // not there, or a link on the way
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

function openFolder(dir: string, folder: string): number | null {
  if (!folder || /[/\u0000]/.test(folder) || folder === '..' || folder === '.') return null;
  try {
    return openSync(`${dir}/${folder}`, DIR_FLAGS);
  } catch {
    return null;
  }
}

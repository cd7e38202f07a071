// What this machine offers a local desktop: programs on PATH, and Unix socket paths that fit.
import { accessSync, constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The executable's full path when it is on PATH, else null. */
export function findBinary(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, name);
    try {
      accessSync(full, constants.X_OK);
      return full;
    } catch {}
  }
  return null;
}

/** `home/name`, or, since Unix socket paths are limited to 107 bytes, a hashed name in the temp dir. */
export function shortSocketPath(home: string, name: string): string {
  const inHome = join(home, name);
  if (Buffer.byteLength(inHome) < 100) return inHome;
  return join(tmpdir(), `aw-${createHash('sha256').update(inHome).digest('hex').slice(0, 16)}.sock`);
}

// Puts a home's archive back, read here and trusted in nothing: only regular files and folders, at relative
// paths without '..', within a byte cap. A link, a hard link, a device, a FIFO, an absolute or climbing path, a
// bad header or too many bytes refuses the whole archive (ArchiveRefused), whatever was written by then.
// Files are made fresh (O_EXCL, O_NOFOLLOW) under folders made here; modes lose setuid, setgid and sticky bits.
import { constants } from 'node:fs';
import { chmod, lchown, lstat, mkdir, open, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Account } from '../contain/index.ts';

export class ArchiveRefused extends Error {}

export type ExtractOptions = { maxBytes: number; account: Account | null };

const BLOCK = 512;
const FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export type TarEntry = {
  /** The entry's path as the archive names it (long names resolved). */
  name: string;
  /** Its type flag: '0' or '7' a regular file, '5' a folder, anything else refused by extractHome. */
  type: string;
  size: number;
  mode: number;
  mtime: number;
  /** Its bytes, once; what is not read is skipped when the next entry is asked for. */
  data(): AsyncIterable<Buffer>;
};

/** The entries of a tar stream (GNU and POSIX layouts), checked header by header; ArchiveRefused on a bad one. */
export async function* tarEntries(source: Readable): AsyncGenerator<TarEntry> {
  const input = new Blocks(source);
  let longName: string | null = null;
  let paxPath: string | null = null;
  for (;;) {
    const header = await input.take(BLOCK);
    if (!header) throw new ArchiveRefused('the archive ends without its end blocks');
    if (header.every((b) => b === 0)) return;
    checkSum(header);
    const type = String.fromCharCode(header[156] || 0x30);
    const size = numeric(header, 124, 12);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L' || type === 'x' || type === 'g') {
      if (size > 64 * 1024) throw new ArchiveRefused('an extended header is too large');
      const data = (await input.take(padded))?.subarray(0, size);
      if (!data) throw new ArchiveRefused('the archive is cut short');
      if (type === 'L') longName = data.toString('utf8').replace(/\0+$/, '');
      else if (type === 'x') paxPath = paxValue(data, 'path') ?? paxPath;
      continue;
    }
    const name = paxPath ?? longName ?? headerName(header);
    longName = paxPath = null;
    let left = type === '5' ? 0 : size;
    yield {
      name, type, size, mode: numeric(header, 100, 8), mtime: numeric(header, 136, 12),
      data: async function* () {
        while (left > 0) {
          const chunk = await input.takeSome(left);
          if (!chunk) throw new ArchiveRefused('the archive is cut short');
          left -= chunk.length;
          yield chunk;
        }
      },
    };
    await input.skip(left + padded - size);
  }
}

/** Extracts a tar stream into `dir` (an empty folder nobody else writes in now); the files' and folders' count and bytes. */
export async function extractHome(source: Readable, dir: string, o: ExtractOptions): Promise<{ entries: number; bytes: number }> {
  let entries = 0;
  let bytes = 0;
  for await (const entry of tarEntries(source)) {
    const { name, type, size } = entry;
    const rel = safePath(name);
    if (type === '5') {
      if (rel) {
        await makeDir(dir, rel, o.account);
        await chmod(join(dir, rel), entry.mode & 0o777);
      }
      entries++;
      continue;
    }
    if (type !== '0' && type !== '7') throw new ArchiveRefused(`${JSON.stringify(name)} is not a regular file or folder (type ${JSON.stringify(type)})`);
    if (!rel) throw new ArchiveRefused('a file without a name');
    bytes += size;
    if (bytes > o.maxBytes) throw new ArchiveRefused(`the archive holds more than ${o.maxBytes} bytes`);
    const parts = rel.split('/');
    if (parts.length > 1) await makeDir(dir, parts.slice(0, -1).join('/'), o.account);
    const path = join(dir, rel);
    const file = await open(path, FILE_FLAGS, 0o600).catch((err) => {
      throw err.code === 'EEXIST' ? new ArchiveRefused(`${JSON.stringify(rel)} is in the archive twice`) : err;
    });
    try {
      for await (const chunk of entry.data()) await file.write(chunk);
      await file.chmod(entry.mode & 0o777);
      if (o.account) await file.chown(o.account.uid, o.account.gid);
    } finally {
      await file.close();
    }
    await utimes(path, entry.mtime, entry.mtime);
    entries++;
  }
  return { entries, bytes };
}

/** A relative path without '.' or '..' parts ('' for the archive's root), or ArchiveRefused. */
export function safePath(name: string): string {
  if (name.includes('\0') || name.startsWith('/')) throw new ArchiveRefused(`${JSON.stringify(name)} is not a relative path`);
  const parts = name.split('/').filter((p, i, all) => !(p === '.' && i === 0) && !(p === '' && i === all.length - 1));
  if (parts.some((p) => p === '' || p === '.' || p === '..')) throw new ArchiveRefused(`${JSON.stringify(name)} is not a plain path`);
  return parts.join('/');
}

/** Makes `rel` and its parents under `dir`, each a real folder (never through a link), the agent's. */
async function makeDir(dir: string, rel: string, account: Account | null): Promise<void> {
  let at = dir;
  for (const part of rel.split('/')) {
    at = join(at, part);
    const st = await lstat(at).catch(() => null);
    if (st && !st.isDirectory()) throw new ArchiveRefused(`${JSON.stringify(rel)} passes through a file`);
    if (st) continue;
    await mkdir(at, { mode: 0o700 });
    if (account) await lchown(at, account.uid, account.gid);
  }
}

function headerName(header: Buffer): string {
  const name = cString(header, 0, 100);
  // POSIX ustar keeps a prefix at 345; GNU's "ustar  " puts other fields there.
  const prefix = header.subarray(257, 263).toString('latin1') === 'ustar\0' ? cString(header, 345, 155) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cString(buf: Buffer, at: number, length: number): string {
  const field = buf.subarray(at, at + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

/** An octal field, or GNU's base-256 (high bit set) for large values. */
function numeric(buf: Buffer, at: number, length: number): number {
  const field = buf.subarray(at, at + length);
  if (field[0] & 0x80) {
    let value = field[0] & 0x7f;
    for (let i = 1; i < length; i++) value = value * 256 + field[i];
    if (!Number.isSafeInteger(value)) throw new ArchiveRefused('a number in a header is too large');
    return value;
  }
  const text = field.toString('latin1').replace(/[\0 ]+$/, '').trim();
  if (!/^[0-7]*$/.test(text)) throw new ArchiveRefused('a header holds a bad number');
  return text ? parseInt(text, 8) : 0;
}

function checkSum(header: Buffer): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  if (sum !== numeric(header, 148, 8)) throw new ArchiveRefused('a header\'s checksum is wrong');
}

/** One value of a pax extended header ("<length> <key>=<value>\n" records). */
function paxValue(data: Buffer, key: string): string | null {
  let at = 0;
  let found: string | null = null;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = parseInt(data.subarray(at, space).toString('latin1'), 10);
    if (space === -1 || !(length > 0) || at + length > data.length) throw new ArchiveRefused('a bad extended header');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === key) found = record.slice(eq + 1);
    at += length;
  }
  return found;
}

/** Exact reads from a stream: `take(n)` n bytes (null at a clean end), `takeSome(max)` what is there up to max. */
class Blocks {
  private iterator: AsyncIterator<Buffer>;
  private pending: Buffer = Buffer.alloc(0);
  private ended = false;

  constructor(source: Readable) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  async take(n: number): Promise<Buffer | null> {
    while (this.pending.length < n && (await this.more()));
    if (this.pending.length < n) {
      if (this.pending.length === 0) return null;
      throw new ArchiveRefused('the archive is cut short');
    }
    const out = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    return out;
  }

  async takeSome(max: number): Promise<Buffer | null> {
    if (!this.pending.length && !(await this.more())) return null;
    const out = this.pending.subarray(0, max);
    this.pending = this.pending.subarray(out.length);
    return out;
  }

  async skip(n: number): Promise<void> {
    while (n > 0) {
      const chunk = await this.takeSome(n);
      if (!chunk) throw new ArchiveRefused('the archive is cut short');
      n -= chunk.length;
    }
  }

  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.iterator.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.pending = this.pending.length ? Buffer.concat([this.pending, next.value]) : next.value;
    return true;
  }
}

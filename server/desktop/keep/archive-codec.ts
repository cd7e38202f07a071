// How a home's archive is compressed: zstd when the machine has it (Debian: zstd), gzip otherwise. Measured here on
// a 100 MB home (60 MB that does not compress) beside other work: zstd -1 0.2 s, Node's gzip level 1 3.1 s, gzip -1
// 5.4 s; the checkpoint's budget is 3 s. Reading tells the two apart by their first bytes, so a store may hold both.
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { spawnChild } from '../../system/spawner/index.ts';

export type Codec = 'zstd' | 'gzip';

export const extensionOf = (codec: Codec) => (codec === 'zstd' ? 'tar.zst' : 'tar.gz');

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

/**
 * The tar stream inside a stored archive, whichever its codec. zstd decompresses in a process of its own (the
 * archive is read as data, whatever it holds); `zstd` is its path, or null when the machine has none.
 */
export function decompress(body: Readable, zstd: string | null): Readable {
  const out = new PassThrough();
  body.once('error', (err) => out.destroy(err));
  body.once('readable', () => {
    const head: Buffer | null = body.read(4) ?? body.read();
    if (!head) return void out.end();
    body.unshift(head);
    if (!head.subarray(0, 4).equals(ZSTD_MAGIC)) return void body.pipe(createGunzip()).on('error', (err) => out.destroy(err)).pipe(out);
    if (!zstd) return void out.destroy(new Error('this home\'s checkpoint is zstd-compressed and zstd is not installed here (Debian: zstd)'));
    const child = spawnChild(zstd, ['-d', '-q', '-c'], { stdio: ['pipe', 'pipe', 'ignore'] }); // no fork of the server (issue 48)
    child.once('error', (err) => out.destroy(err));
    child.stdin!.on('error', () => {}); // a reader that stopped early closes the pipe; the exit code is not needed then
    body.pipe(child.stdin!);
    child.stdout!.pipe(out);
    child.once('close', (code) => code && !out.destroyed && out.destroy(new Error(`zstd could not read the archive (exit ${code})`)));
    out.once('close', () => {
      body.destroy();
      child.kill();
    });
  });
  return out;
}

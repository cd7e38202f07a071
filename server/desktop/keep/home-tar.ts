// What a home's checkpoint is made from, read as the agent: in a job sandbox of its own (no network, the system
// read-only, only the home at hand), so that nothing it lists or archives lies outside what the agent may read.
// `find` names the regular files and folders (links, sockets, FIFOs and devices are left out: Chromium's
// Singleton* links point at a process that will not be there) and `tar` archives that list, never following a link.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Sandbox } from '../contain/index.ts';

export type HomeJob = Pick<Sandbox, 'spawn' | 'insideHome'>;

/** The home as a listing: its hash (what changed), its files' bytes, and how many entries. */
export type HomeListing = { fingerprint: string; bytes: number; entries: number };

// Not kept: an ext4 image's lost+found (root's), and what the server writes afresh at every start (the display's
// cookie, the folder of the desktop's sockets), which would otherwise make every home look changed.
const SKIP = ['./lost+found', './.Xauthority', './.run'].map((p) => `-path ${p} -prune -o`).join(' ');
const FIND = `cd "$1" && find . -mindepth 1 ${SKIP} \\( -type f -o -type d \\)`;

/** Lists the home as the agent: kind, mode, size and time of every regular file and folder. */
export async function listHome(job: HomeJob): Promise<HomeListing> {
  const child = job.spawn('/bin/sh', ['-c', `${FIND} -printf '%y %m %s %T@ %P\\0'`, 'sh', job.insideHome], { stdio: ['ignore', 'pipe', 'pipe'] });
  const [out, err, code] = await Promise.all([collect(child.stdout!), collect(child.stderr!), exitOf(child)]);
  if (code !== 0) throw new Error(`listing the home failed: ${err.toString().trim() || `exit ${code}`}`);
  const hash = createHash('sha256');
  let bytes = 0;
  let entries = 0;
  for (const line of out.toString('utf8').split('\0')) {
    if (!line) continue;
    const [kind, mode, size, time] = line.split(' ', 4);
    const name = line.slice(kind.length + mode.length + size.length + time.length + 4);
    entries++;
    // A folder's size and time change with what it holds, which its entries already say; a file's time in whole
    // seconds, as tar keeps it, so that a restored home lists as the one stored. (So a file rewritten at the same size
    // within the second its last listing saw looks unchanged until something else changes.)
    if (kind === 'f') {
      bytes += Number(size);
      hash.update(`f ${mode} ${size} ${Math.floor(Number(time))} ${name}\0`);
    } else hash.update(`d ${mode} ${name}\0`);
  }
  return { fingerprint: hash.digest('hex'), bytes, entries };
}

/**
 * The home's regular files and folders as a tar stream, compressed with zstd (fastest level) when `zstd` is given,
 * else uncompressed; made as the agent. `done` rejects when tar (or zstd) failed.
 */
export function tarHome(job: HomeJob, zstd: boolean): { stream: Readable; done: Promise<void> } {
  const tar = `${FIND} -print0 | tar --null --no-recursion -T - --format=gnu --numeric-owner -cf -`;
  // The status is tar's, unless zstd failed (3): bash keeps every status of the pipeline.
  const script = zstd ? `${tar} | zstd -1 -q -c; s=("\${PIPESTATUS[@]}"); [ "\${s[2]}" = 0 ] || exit 3; exit "\${s[1]}"` : tar;
  const child = job.spawn('/bin/bash', ['-c', script, 'bash', job.insideHome], { stdio: ['ignore', 'pipe', 'pipe'] });
  const err = collect(child.stderr!);
  const done = exitOf(child).then(async (code) => {
    // 1: a file changed while it was read (an awake desktop); what was read is kept.
    if (code !== 0 && code !== 1) throw new Error(`archiving the home failed: ${(await err).toString().trim() || `exit ${code}`}`);
  });
  return { stream: child.stdout!, done };
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function exitOf(child: ReturnType<HomeJob['spawn']>): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

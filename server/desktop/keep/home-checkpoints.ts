// Homes that follow the desktop (issue 50): a home is stored as one compressed tar (a blob under
// homes/agent-<id>/<generation>.tar.zst, or .tar.gz where zstd is missing) when its desktop stops or falls asleep, and before a desktop starts its
// home is restored from the newest generation when this machine's copy is older. This machine's generation is
// noted beside the home (DATA_DIR/desktops/agent-<id>.generation, root's: the agent cannot reach it).
//
// When: at every stop (idle, to make room, the server's own stop) and at every sleep, when the desktop's programs
// are frozen and their files consistent. A killed server checkpoints nothing, so what another instance restores
// then is the last sleep's or stop's home. An unchanged home (the same listing) is not stored again; one over the
// limit (AGENT_HOME_MB) is not stored at all and its owner is told once ('too-large').
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Db } from '../../db/db.ts';
import type { Log } from '../../ops/log.ts';
import type { BlobStore } from '../../storage/index.ts';
import type { Account, Containment } from '../contain/index.ts';
import { decompress, extensionOf, type Codec } from './archive-codec.ts';
import { deleteOlderCheckpoints, insertCheckpoint, newestCheckpoint } from './checkpoint-rows.ts';
import { ArchiveRefused, extractHome } from './home-extract.ts';
import { listHome, tarHome, type HomeJob } from './home-tar.ts';

const MB = 1024 * 1024;
/** gzip's fastest level, where zstd is missing (archive-codec.ts): the budget is 3 s for 100 MB. */
const GZIP_LEVEL = 1;

/** What the checkpoints need of the homes (Containment): where a home is, whose it is, a job sandbox in it. */
export type HomeAccess = {
  homeOf(agentId: number): string;
  account(agentId: number): Account | null;
  /** A sandbox with no network that sees only the home, for listing and archiving it as the agent. */
  job(agentId: number): HomeJob;
  /** Makes the home ready again after a restore emptied it (its folders, a shell profile). */
  prepare(agentId: number): Promise<void>;
  /** A program's full path on the desktops' PATH (zstd), or null. */
  which(name: string): string | null;
};

/** The homes of a Containment: listed and archived in its job sandboxes, as the agents' users. */
export function containedHomes(containment: Containment): HomeAccess {
  return {
    homeOf: (agentId) => containment.homeOf(agentId),
    account: (agentId) => containment.account(agentId),
    job: (agentId) => containment.job(agentId),
    prepare: (agentId) => containment.prepareHome(agentId),
    which: (name) => containment.which(name),
  };
}

export type HomeCheckpointsOptions = {
  db: Db;
  blobs: BlobStore;
  log: Log;
  homes: HomeAccess;
  /** AGENT_HOME_MB: a home whose files hold more is not stored. */
  limitMb: number;
  instanceId?: string | null;
};

export type CheckpointResult =
  | { stored: true; generation: number; bytes: number; homeBytes: number }
  | { stored: false; why: 'unchanged' | 'too-large' | 'no-home'; generation: number | null };

/** Events: 'too-large' (agentId, homeMb as text, limitMb), once until the home fits again. */
export class HomeCheckpoints extends EventEmitter {
  /** One checkpoint or restore per agent at a time. */
  private busy = new Map<number, Promise<unknown>>();
  private tooLarge = new Set<number>();

  constructor(private o: HomeCheckpointsOptions) {
    super();
  }

  /** The homes it keeps. */
  get homes(): HomeAccess {
    return this.o.homes;
  }

  static key(agentId: number, generation: number, codec: Codec = 'gzip'): string {
    return `homes/agent-${agentId}/${generation}.${extensionOf(codec)}`;
  }

  /** Stores the home as a new generation unless it is unchanged or over the limit. */
  checkpoint(agentId: number): Promise<CheckpointResult> {
    return this.serial(agentId, () => this.checkpointNow(agentId));
  }

  /** Restores the newest generation when this machine's copy is older; the generation restored, or null. */
  restore(agentId: number): Promise<number | null> {
    return this.serial(agentId, () => this.restoreNow(agentId));
  }

  /** The generation this machine's copy of the home is (0: none restored or stored here). */
  localGeneration(agentId: number): number {
    try {
      return Number(readFileSync(this.generationFile(agentId), 'utf8')) || 0;
    } catch {
      return 0;
    }
  }

  /** A deleted agent: its checkpoints and this machine's note of them go (its rows went with the agent). */
  async forget(agentId: number): Promise<void> {
    await this.busy.get(agentId)?.catch(() => {});
    await this.o.blobs.deletePrefix(`homes/agent-${agentId}/`);
    await rm(this.generationFile(agentId), { force: true });
  }

  private async checkpointNow(agentId: number): Promise<CheckpointResult> {
    const { db, blobs, log } = this.o;
    const home = this.o.homes.homeOf(agentId);
    if (!(await readdir(home).then(() => true, () => false))) return { stored: false, why: 'no-home', generation: null };
    const job = this.o.homes.job(agentId);
    const listing = await listHome(job);
    const newest = await newestCheckpoint(db, agentId);
    if (newest && newest.fingerprint === listing.fingerprint) {
      await this.noteGeneration(agentId, newest.generation);
      return { stored: false, why: 'unchanged', generation: newest.generation };
    }
    const limit = this.o.limitMb * MB;
    if (listing.bytes > limit) {
      const homeMb = (listing.bytes / MB).toFixed(1);
      if (!this.tooLarge.has(agentId)) this.emit('too-large', agentId, homeMb, this.o.limitMb);
      this.tooLarge.add(agentId);
      log.error(`desktop ${agentId}: home not checkpointed: ${homeMb} MB is over AGENT_HOME_MB (${this.o.limitMb})`);
      return { stored: false, why: 'too-large', generation: newest?.generation ?? null };
    }
    this.tooLarge.delete(agentId);
    const generation = Math.max(newest?.generation ?? 0, this.localGeneration(agentId)) + 1;
    const codec: Codec = this.o.homes.which('zstd') ? 'zstd' : 'gzip';
    const key = HomeCheckpoints.key(agentId, generation, codec);
    const hash = createHash('sha256');
    const { stream, done } = tarHome(job, codec === 'zstd');
    const hashed = new PassThrough();
    hashed.on('data', (chunk) => hash.update(chunk));
    // Headers and padding add to the files' bytes; a home that grew past the limit meanwhile ends the put.
    const stored = blobs.put(key, hashed, { contentType: `application/${codec}`, maxBytes: limit + 64 * MB });
    const compressed = codec === 'zstd' ? pipeline(stream, hashed) : pipeline(stream, createGzip({ level: GZIP_LEVEL }), hashed);
    try {
      await Promise.all([compressed, stored, done]);
    } catch (err) {
      stream.destroy();
      await blobs.delete(key).catch(() => {});
      throw err;
    }
    const info = await stored;
    const row = {
      agent_id: agentId, generation, blob_key: key, bytes: info.bytes, home_bytes: listing.bytes, fingerprint: listing.fingerprint,
      sha256: hash.digest('hex'),
    };
    if (!(await insertCheckpoint(db, row, this.o.instanceId ?? null))) {
      await blobs.delete(key).catch(() => {});
      throw new Error(`home generation ${generation} of agent ${agentId} was stored by another instance meanwhile`);
    }
    await this.noteGeneration(agentId, generation);
    for (const old of await deleteOlderCheckpoints(db, agentId, generation)) {
      await blobs.delete(old).catch((err) => log.error(`desktop ${agentId}: old home checkpoint ${old} not deleted: ${err.message}`));
    }
    return { stored: true, generation, bytes: info.bytes, homeBytes: listing.bytes };
  }

  private async restoreNow(agentId: number): Promise<number | null> {
    const newest = await newestCheckpoint(this.o.db, agentId);
    if (!newest || newest.generation <= this.localGeneration(agentId)) return null;
    const read = await this.o.blobs.get(newest.blob_key);
    if (!read) throw new Error(`home checkpoint ${newest.blob_key} is missing from the store`);
    const home = this.o.homes.homeOf(agentId);
    await emptyFolder(home);
    const hash = createHash('sha256');
    const hashing = new Transform({ transform: (chunk, _enc, next) => (hash.update(chunk), next(null, chunk)) });
    read.body.on('error', (err) => hashing.destroy(err));
    const tar = decompress(read.body.pipe(hashing), this.o.homes.which('zstd'));
    try {
      await extractHome(tar, home, { maxBytes: this.o.limitMb * MB, account: this.o.homes.account(agentId) });
      // Whatever follows the end blocks is read too: the hash covers the whole archive.
      for await (const _ of tar); // eslint-disable-line @typescript-eslint/no-unused-vars
      if (hash.digest('hex') !== newest.sha256) throw new ArchiveRefused('the archive is not the one stored (sha256)');
    } catch (err) {
      read.body.destroy();
      await emptyFolder(home);
      await this.o.homes.prepare(agentId);
      if (!(err instanceof ArchiveRefused)) throw err;
      // Never put back, never tried again: the desktop starts with a fresh home, and its next checkpoint supersedes it.
      this.o.log.error(`desktop ${agentId}: home checkpoint ${newest.generation} refused: ${err.message}`);
      await this.noteGeneration(agentId, newest.generation);
      return null;
    }
    await this.o.homes.prepare(agentId);
    await this.noteGeneration(agentId, newest.generation);
    return newest.generation;
  }

  private generationFile(agentId: number): string {
    return `${this.o.homes.homeOf(agentId)}.generation`;
  }

  private async noteGeneration(agentId: number, generation: number): Promise<void> {
    if (this.localGeneration(agentId) !== generation) await writeFile(this.generationFile(agentId), String(generation), { mode: 0o600 });
  }

  private serial<T>(agentId: number, work: () => Promise<T>): Promise<T> {
    const before = this.busy.get(agentId) ?? Promise.resolve();
    const next = before.catch(() => {}).then(work);
    this.busy.set(agentId, next);
    void next.finally(() => this.busy.get(agentId) === next && this.busy.delete(agentId)).catch(() => {});
    return next;
  }
}

/** Empties a home (no program of the agent's runs): rm removes links, it never follows them. */
async function emptyFolder(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) {
    if (entry === 'lost+found') continue; // an image's, root's
    await rm(join(dir, entry), { recursive: true, force: true });
  }
}

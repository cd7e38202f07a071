// What an agent may still store, as one object bound to the database, the quota setting and the disk: the
// routes, the mail intake and the recordings ask it for a body's cap before reading it (the quota left, so a
// body is refused with 413 while it streams) and whether the disk still keeps its reserve (else 507).
// Everything stored for the agent counts (agents/uploads.ts); its desktop's screenshot is written by
// server/desktop/ without a size in the database, so its file is measured here (`unrecorded`).
import { stat } from 'node:fs/promises';
import type { Config } from '../config/index.ts';
import type { Db, Queryable } from '../db/db.ts';
import { ensureQuota, QuotaExceeded, storageUsed, type Quota } from './uploads.ts';
import type { DiskSpace } from '../files/disk-space.ts';

export type AgentStorageOptions = {
  db: Db;
  /** Read per call: AGENT_STORAGE_MB (tests change it on the fly). */
  config: Pick<Config, 'agentStorageBytes'>;
  disk: DiskSpace;
  /** Files stored for the agent that no table records the size of (its screenshot). */
  unrecorded?: (agentId: number) => string[];
};

export type BodyLimit = { bytes: number; error?: QuotaExceeded };

export class AgentStorage {
  constructor(private o: AgentStorageOptions) {}

  get disk(): DiskSpace {
    return this.o.disk;
  }

  /** The agent's quota, with the bytes of its unrecorded files. */
  async quota(agentId: number): Promise<Quota> {
    let unrecorded = 0;
    for (const path of this.o.unrecorded?.(agentId) ?? []) unrecorded += await stat(path).then((s) => s.size, () => 0);
    return { bytes: this.o.config.agentStorageBytes, unrecorded };
  }

  /** Bytes stored for the agent, and how many more it may store. */
  async usage(agentId: number, q: Queryable = this.o.db): Promise<{ quota: Quota; used: number; left: number }> {
    const quota = await this.quota(agentId);
    const used = (await storageUsed(q, agentId)) + quota.unrecorded;
    return { quota, used, left: Math.max(0, quota.bytes - used) };
  }

  /** The most a new body may bring: `cap`, or what is left of the quota when that is less (then its 413). */
  async limit(agentId: number, cap: number): Promise<BodyLimit> {
    const { quota, used, left } = await this.usage(agentId);
    return left < cap ? { bytes: left, error: new QuotaExceeded(quota.bytes, used) } : { bytes: cap };
  }

  /** Before taking a new upload or mail attachment: the disk keeps its reserve for the database (else 507). */
  admit(incoming = 0): Promise<void> {
    return this.o.disk.ensureRoom(incoming);
  }

  /**
   * For a file no table records (the screenshot): QuotaExceeded (413) when `bytes` in place of the file at
   * `replacing` (if any) would take the agent past its quota. Without a lock: such a file is small and one a time.
   */
  async ensureFileFits(agentId: number, bytes: number, replacing?: string): Promise<void> {
    const { quota, used } = await this.usage(agentId);
    const old = replacing ? await stat(replacing).then((s) => s.size, () => 0) : 0;
    if (used - old + bytes > quota.bytes) throw new QuotaExceeded(quota.bytes, used);
  }

  /** Inside a transaction: locks the agent and checks that `adding` bytes fit (else QuotaExceeded, 413). */
  async ensure(q: Queryable, agentId: number, adding: number): Promise<Quota> {
    const quota = await this.quota(agentId);
    await ensureQuota(q, agentId, quota, adding);
    return quota;
  }
}

// Free space of the data directory (statfs), and the reserve kept for the database: below it, new uploads and
// mail attachments are refused with 507 while the database can still write (a message, a run's steps). The
// log warns when free space falls below the reserve, once, and says when it is back above it.
// DISK_RESERVE_MB unset: 1024 MB, or 5 % of the disk when that is less (a small disk keeps most of itself).
import { statfs } from 'node:fs/promises';
import type { Log } from '../ops/log.ts';
import { OutOfSpace } from './safe-write.ts';

const MB = 1024 * 1024;
export const DEFAULT_RESERVE_BYTES = 1024 * MB;
export const DEFAULT_RESERVE_SHARE = 0.05;

export type DiskReading = { free: number; total: number; reserve: number; low: boolean };

export type DiskSpaceOptions = {
  dir: string;
  /** config.diskReserveBytes: null for the default. */
  reserveBytes: number | null;
  log: Pick<Log, 'info' | 'error'>;
  /** @default node:fs statfs */
  statfs?: (dir: string) => Promise<{ bavail: number | bigint; blocks: number | bigint; bsize: number | bigint }>;
};

export function reserveFor(total: number, configured: number | null): number {
  return configured ?? Math.min(DEFAULT_RESERVE_BYTES, Math.floor(total * DEFAULT_RESERVE_SHARE));
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

export class DiskSpace {
  private low = false;

  constructor(private o: DiskSpaceOptions) {}

  /** Free space for us (what an unprivileged writer may still use), the disk's size and the reserve. */
  async read(): Promise<DiskReading> {
    const s = await (this.o.statfs ?? statfs)(this.o.dir);
    const free = Number(s.bavail) * Number(s.bsize);
    const total = Number(s.blocks) * Number(s.bsize);
    const reserve = reserveFor(total, this.o.reserveBytes);
    const low = free < reserve;
    if (low !== this.low) {
      this.low = low;
      if (low) {
        const what = 'new uploads and mail attachments are refused';
        this.o.log.error(`disk space low: ${mb(free)} free in ${this.o.dir}, below the reserve of ${mb(reserve)}: ${what}`);
      } else {
        this.o.log.info(`disk space recovered: ${mb(free)} free in ${this.o.dir} (reserve ${mb(reserve)}): uploads are taken again`);
      }
    }
    return { free, total, reserve, low };
  }

  /**
   * Before taking a new file: OutOfSpace (507) when free space is below the reserve, or when the `incoming` bytes
   * (a declared length) cannot fit at all; then the client need not send them to learn it. A file may still take
   * the disk below the reserve: the next one is refused, and the reserve is there for that.
   */
  async ensureRoom(incoming = 0): Promise<void> {
    const { free, low } = await this.read();
    if (low || incoming > free) throw new OutOfSpace();
  }
}

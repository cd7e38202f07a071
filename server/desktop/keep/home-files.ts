// What an agent's desktop holds in ~/Desktop and ~/Downloads (issue 50), for its owner to download: read from the
// home on this machine when that copy is the newest (the desktop runs here, or this machine stored or restored the
// newest checkpoint), else from the newest checkpoint in the store, which every instance reads. Only regular files
// directly in those folders; nothing an agent planted is followed (untrusted-file.ts), and a checkpoint is read
// with the same checks as a restore (home-extract.ts).
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { Db } from '../../db/db.ts';
import type { BlobStore } from '../../storage/index.ts';
import { listUntrustedFolder, openUntrustedFile } from '../contain/untrusted-file.ts';
import { decompress } from './archive-codec.ts';
import { newestCheckpoint, type CheckpointRow } from './checkpoint-rows.ts';
import { safePath, tarEntries, type TarEntry } from './home-extract.ts';

/** The folders of a home whose files are the agent's to hand over. */
export const HOME_FOLDERS = ['Desktop', 'Downloads'] as const;
export type HomeFolder = (typeof HOME_FOLDERS)[number];

export type HomeFile = { folder: HomeFolder; name: string; bytes: number; modifiedAt: Date };
export type HomeFileRead = { body: Readable; bytes: number; modifiedAt: Date };

/** The instance that runs the desktop now, asked over signed internal calls (fleet): its home is the newest copy. */
export type RemoteHomeFiles = {
  holderOf(agentId: number): Promise<string | null>;
  list(instanceId: string, agentId: number): Promise<HomeFile[] | undefined>;
  open(instanceId: string, agentId: number, folder: string, name: string): Promise<HomeFileRead | null | undefined>;
};

export type HomeFilesOptions = {
  db: Db;
  blobs: BlobStore;
  /** The home on this machine, or null where no desktop starts (desktops off). */
  homeOf: ((agentId: number) => string) | null;
  /** The generation of this machine's copy of the home (0: none). */
  localGeneration: (agentId: number) => number;
  /** Whether the agent's desktop runs on this machine now (its home is then the newest, whatever was stored). */
  runningHere: (agentId: number) => boolean;
  /** zstd's path, for checkpoints compressed with it (archive-codec.ts), or null. */
  zstd: string | null;
};

const MAX_FILES = 1000;

export class HomeFiles {
  /** With a fleet: the holder of a desktop that runs elsewhere (set once the fleet is made). */
  remote: RemoteHomeFiles | null = null;

  constructor(private o: HomeFilesOptions) {}

  async list(agentId: number): Promise<HomeFile[]> {
    const holder = await this.holder(agentId);
    const there = holder && (await this.remote!.list(holder, agentId).catch(() => undefined));
    if (there) return there.map((f) => ({ ...f, modifiedAt: new Date(f.modifiedAt) }));
    const from = await this.source(agentId);
    if (from === 'none') return [];
    if (typeof from === 'string') {
      return HOME_FOLDERS.flatMap((folder) => listUntrustedFolder(from, folder, MAX_FILES).map((f) => ({ folder, ...f })));
    }
    const found: HomeFile[] = [];
    await this.readArchive(from, async (entry, folder, name) => {
      if (found.length < MAX_FILES * HOME_FOLDERS.length) found.push({ folder, name, bytes: entry.size, modifiedAt: new Date(entry.mtime * 1000) });
      return false;
    });
    return found;
  }

  /** The file `name` of `folder`, or null when there is none (or it is not a regular file). */
  async open(agentId: number, folder: string, name: string): Promise<HomeFileRead | null> {
    if (!(HOME_FOLDERS as readonly string[]).includes(folder)) return null;
    const holder = await this.holder(agentId);
    const there = holder ? await this.remote!.open(holder, agentId, folder, name).catch(() => undefined) : undefined;
    if (there !== undefined) return there;
    const from = await this.source(agentId);
    if (from === 'none') return null;
    if (typeof from === 'string') {
      const file = openUntrustedFile(from, folder, name);
      return file && { body: createReadStream('', { fd: file.fd }), bytes: file.bytes, modifiedAt: file.modifiedAt };
    }
    let read: HomeFileRead | null = null;
    await this.readArchive(from, async (entry, f, n, stop) => {
      if (f !== folder || n !== name) return false;
      // The archive is read on as the body is: the reading ends (stop) once the body is.
      const body = Readable.from((async function* () {
        try {
          yield* entry.data();
        } finally {
          stop();
        }
      })());
      read = { body, bytes: entry.size, modifiedAt: new Date(entry.mtime * 1000) };
      return true;
    });
    return read;
  }

  /** The files of this machine's copy of the home, whatever was stored (asked by the instance in front of a viewer). */
  listHere(agentId: number): HomeFile[] {
    const home = this.o.homeOf?.(agentId);
    if (!home) return [];
    return HOME_FOLDERS.flatMap((folder) => listUntrustedFolder(home, folder, MAX_FILES).map((f) => ({ folder, ...f })));
  }

  /** One file of this machine's copy of the home, or null. */
  openHere(agentId: number, folder: string, name: string): HomeFileRead | null {
    const home = this.o.homeOf?.(agentId);
    if (!home || !(HOME_FOLDERS as readonly string[]).includes(folder)) return null;
    const file = openUntrustedFile(home, folder, name);
    return file && { body: createReadStream('', { fd: file.fd }), bytes: file.bytes, modifiedAt: file.modifiedAt };
  }

  /** Another live instance that runs the desktop now (a fleet), or null: this one answers. */
  private async holder(agentId: number): Promise<string | null> {
    if (!this.remote || this.o.runningHere(agentId)) return null;
    return this.remote.holderOf(agentId).catch(() => null);
  }

  /** This machine's home when it is the newest copy, else the newest checkpoint, else none. */
  private async source(agentId: number): Promise<string | CheckpointRow | 'none'> {
    const home = this.o.homeOf?.(agentId) ?? null;
    const newest = await newestCheckpoint(this.o.db, agentId);
    if (home && (this.o.runningHere(agentId) || !newest || newest.generation <= this.o.localGeneration(agentId))) return home;
    return newest ?? 'none';
  }

  /**
   * Calls `take` for each regular file directly in Desktop/ or Downloads/ of the checkpoint; `take` returning true keeps
   * the archive open for the entry's body until its `stop` is called. A refused or missing archive lists nothing.
   */
  private async readArchive(
    row: CheckpointRow, take: (entry: TarEntry, folder: HomeFolder, name: string, stop: () => void) => Promise<boolean>,
  ): Promise<void> {
    const read = await this.o.blobs.get(row.blob_key);
    if (!read) return;
    const tar = decompress(read.body, this.o.zstd);
    const entries = tarEntries(tar);
    const stop = () => {
      void entries.return(undefined);
      read.body.destroy();
    };
    let kept = false;
    try {
      for await (const entry of entries) {
        if (entry.type !== '0' && entry.type !== '7') continue;
        const parts = safePath(entry.name).split('/');
        if (parts.length !== 2 || !(HOME_FOLDERS as readonly string[]).includes(parts[0])) continue;
        if (await take(entry, parts[0] as HomeFolder, parts[1], stop)) {
          kept = true;
          return;
        }
      }
    } catch {
      // A damaged or refused archive: what was found before it stays listed.
    } finally {
      if (!kept) stop();
    }
  }
}

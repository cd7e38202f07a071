// The recordings of the runs (issue 44): every run on a desktop is recorded by the instance that runs it, whether
// anyone watches or not, into $DATA_DIR/files/agent-<a>/runs/thread-<t>/run-<r>.guac.gz (recorder.ts writes it), and
// once the run ends the finished file is put in the blob store under that key (with the local store it is already
// there), where every instance reads it. A file the store would not take stays on this instance, which serves it.
// A recording counts against the agent's storage quota and never eats the disk's reserve for the database: without
// room it does not start, and when room runs out it stops cleanly, the run goes on and the thread says so. A
// deleted thread's recordings go (from the store, and every instance removes its own files); retention prunes old
// ones daily.
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Log } from '../ops/log.ts';
import type { Desktop } from '../desktop/index.ts';
import type { AgentStorage } from '../agents/storage.ts';
import { addMessage } from '../threads/messages.ts';
import { TOPICS } from '../realtime/topics.ts';
import { recordAlone, SYSTEM } from '../audit/audit.ts';
import { RunRecorder, type RecorderStop } from './recorder.ts';
import type { OpenRun, RunRecording } from '../runner/index.ts';
import type { BlobStore } from '../storage/index.ts';

export type RunRecordingsOptions = {
  db: Db;
  bus: Bus;
  log: Log;
  /** $DATA_DIR/files: recordings being written. */
  filesDir: string;
  /** Where finished recordings go. */
  blobs: BlobStore;
  storage: AgentStorage;
  /** This instance: the runs it recorded are the ones whose files it keeps. */
  instanceId: string;
  /** Recorder settings (tests shorten the keyframe interval). */
  keyframeMs?: number;
};

/** Where a run's recording is, relative to $DATA_DIR/files. */
export const recordingPath = (run: Pick<OpenRun, 'agentId' | 'threadId' | 'id'>) =>
  `agent-${run.agentId}/runs/thread-${run.threadId}/run-${run.id}.guac.gz`;

/** How often a recording's size is written to its run and the agent's quota looked at again. */
const QUOTA_CHECK_MS = 30_000;

const STOPPED: Record<Exclude<RecorderStop, 'finished'>, string> = {
  disk_full: "the server's disk is full",
  quota: "the agent's storage is full",
  desktop_closed: 'the desktop stopped',
  error: 'it could not be written',
};

export const notRecordedText = (why: string) => `This run is not recorded: ${why}. The run goes on.`;
export const stoppedText = (why: string) => `The recording of this run stopped: ${why}. The run goes on; what was recorded until then can be replayed.`;

export class RunRecordings {
  private unsubscribe: () => void;

  constructor(private o: RunRecordingsOptions) {
    this.unsubscribe = o.bus.subscribe(TOPICS.threadDeleted, ({ thread_id, agent_id }) => {
      const folder = `agent-${agent_id}/runs/thread-${thread_id}`;
      Promise.all([rm(join(o.filesDir, folder), { recursive: true, force: true }), o.blobs.deletePrefix(`${folder}/`)])
        .catch((err) => o.log.error(`replay: recordings of deleted thread ${thread_id} not removed: ${err.message}`));
    });
  }

  close(): void {
    this.unsubscribe();
  }

  /** Starts recording the run's desktop; null (and the thread says why) when there is no room for it. */
  async start(run: OpenRun, desktop: Desktop): Promise<RunRecording | null> {
    const { db, storage } = this.o;
    const disk = await storage.disk.read().catch(() => null);
    if (!disk || disk.low) return this.tell(run, notRecordedText(STOPPED.disk_full)), null;
    let allowance = (await storage.usage(run.agentId)).left;
    if (allowance <= 0) return this.tell(run, notRecordedText(STOPPED.quota)), null;

    const relative = recordingPath(run);
    const path = join(this.o.filesDir, relative);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    let checked = Date.now();
    let diskLow = false;
    let told = false;
    const stoppedEarly = (reason: RecorderStop) => {
      if (reason === 'finished' || told) return;
      told = true;
      const why = STOPPED[reason === 'quota' && diskLow ? 'disk_full' : reason];
      this.o.log.info(`replay: run ${run.id}: recording stopped: ${why}`);
      return db.query('UPDATE runs SET recording_stopped = $2 WHERE id = $1', [run.id, stoppedText(why)])
        .then(() => this.tell(run, stoppedText(why)), (err) => this.o.log.error(`replay: run ${run.id}: ${err.message}`));
    };
    const recorder = RunRecorder.start({
      desktop, path, keyframeMs: this.o.keyframeMs,
      // The quota is looked at again now and then, with the size written so far counted in the run's row.
      fits: async (total) => {
        if (Date.now() - checked >= QUOTA_CHECK_MS) {
          checked = Date.now();
          // A database that does not answer for a moment does not end the recording: the last figures hold.
          await db.query('UPDATE runs SET recording_bytes = $2 WHERE id = $1', [run.id, total])
            .then(async () => (allowance = (await storage.usage(run.agentId)).left + total))
            .catch((err) => this.o.log.error(`replay: run ${run.id}: quota not looked at: ${err.message}`));
          diskLow = await storage.disk.read().then((d) => d.low, () => diskLow);
        }
        return !diskLow && total <= allowance;
      },
      onStopped: (reason) => stoppedEarly(reason),
    });
    await db.query('UPDATE runs SET recording_path = $2, recording_started_at = to_timestamp($3 / 1000.0) WHERE id = $1',
      [run.id, relative, recorder.startedAt]);
    return {
      afterAction: () => recorder.frameNow(),
      stop: async () => {
        const done = await recorder.stop();
        await stoppedEarly(done.reason); // the disk filled on the last bytes
        await this.keep(run, relative, path);
        await db.query('UPDATE runs SET recording_bytes = $2, recording_done = true, recording_activity = $3 WHERE id = $1',
          [run.id, done.bytes, JSON.stringify(done.activity)]);
      },
    };
  }

  /** The finished file into the blob store, then off this disk; when the store fails it stays here (and is served from here). */
  private async keep(run: OpenRun, key: string, path: string): Promise<void> {
    const { blobs } = this.o;
    if (blobs.localPath?.(key) === path) return;
    try {
      await blobs.put(key, createReadStream(path), { contentType: 'application/gzip' });
    } catch (err) {
      this.o.log.error(`replay: run ${run.id}: recording kept on this instance, the store did not take it: ${(err as Error).message}`);
      return;
    }
    await unlink(path).catch(() => {});
  }

  /**
   * Deletes the recordings of runs older than `days` (RECORDING_RETENTION_DAYS), and those of runs that are gone (a
   * thread deleted while this instance was down); audited when it removed any. With a store every instance shares
   * (S3) any instance prunes any run's; with the local one, each instance its own runs'.
   */
  async prune(days: number): Promise<number> {
    const { db, filesDir, instanceId, blobs } = this.o;
    const old = await db.query<{ id: number; recording_path: string }>(
      `WITH old AS (SELECT id, recording_path FROM runs
         WHERE recording_path IS NOT NULL AND (instance_id = $1 OR $3) AND started_at < now() - make_interval(days => $2) FOR UPDATE)
       UPDATE runs r SET recording_path = NULL, recording_bytes = 0, recording_activity = NULL FROM old WHERE r.id = old.id
       RETURNING r.id, old.recording_path`, [instanceId, days, blobs.kind !== 'local']);
    for (const r of old) {
      await blobs.delete(r.recording_path).catch((err) => this.o.log.error(`replay: run ${r.id}: recording not deleted: ${err.message}`));
      await unlink(join(filesDir, r.recording_path)).catch(() => {});
    }
    const strays = await this.sweep();
    if (old.length) {
      await recordAlone(db, {
        action: 'replay.prune', actor: SYSTEM, background: true, target: null,
        detail: { deleted: old.length, older_than_days: days, instance_id: instanceId },
      });
    }
    return old.length + strays;
  }

  /** Removes recordings (in the store, and files on this disk) whose run no longer exists; how many. */
  private async sweep(): Promise<number> {
    const { db, filesDir, blobs } = this.o;
    const found: { key: string; id: number }[] = [];
    const note = (key: string) => {
      const m = /^agent-\d+\/runs\/thread-\d+\/run-(\d+)\.guac\.gz$/.exec(key);
      if (m) found.push({ key, id: Number(m[1]) });
    };
    // The store's, agent by agent (a deleted agent's went with it).
    for (const { id } of await db.query<{ id: number }>('SELECT id FROM agents')) {
      for await (const { key } of blobs.list(`agent-${id}/runs/`)) note(key);
    }
    if (!blobs.localPath) {
      for (const agent of await readdir(filesDir).catch(() => [] as string[])) {
        if (!/^agent-\d+$/.test(agent)) continue;
        for (const thread of await readdir(join(filesDir, agent, 'runs')).catch(() => [] as string[])) {
          for (const name of await readdir(join(filesDir, agent, 'runs', thread)).catch(() => [] as string[])) note(`${agent}/runs/${thread}/${name}`);
        }
      }
    }
    if (!found.length) return 0;
    // Only those of runs that are gone: a recording just starting has a file before its row names it.
    const kept = new Set((await db.query<{ id: number }>('SELECT id FROM runs WHERE id = ANY($1::int[])', [found.map((f) => f.id)])).map((r) => r.id));
    const strays = found.filter((f) => !kept.has(f.id));
    for (const f of strays) {
      await blobs.delete(f.key).catch(() => {});
      await unlink(join(filesDir, f.key)).catch(() => {});
    }
    return new Set(strays.map((f) => f.key)).size;
  }

  private tell(run: OpenRun, text: string): void {
    addMessage(this.o.db, this.o.bus, { agent_id: run.agentId, thread_id: run.threadId, role: 'warning', assistant_data: { text }, run_id: run.id })
      .catch((err) => this.o.log.error(`replay: run ${run.id}: could not tell the thread: ${err.message}`));
  }
}

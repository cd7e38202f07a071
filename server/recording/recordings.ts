// Teaching by demonstration, the service behind /api/screenshare: starts and stops recordings, routes the
// gateway's input and the desktop's file drops to the agent's running recording, ends one at the maximum
// length with the assistant message 'Recording automatically stopped …', takes the audio, and then posts
// the summary as the user's input in the recording's thread (a new 'Demonstration' thread when it has
// none), where the agent's next model call sees it with a few keyframes. Created in start.ts.
// Keyframes, the action log and the audio are kept in the blob store (the audio arrives in a file on this disk
// first, then is put there). With several instances (a fleet) a recording is made by the instance that started it
// (its action tracker is in that one's memory): a stop or audio reaching another instance is passed to it, and the
// controlling viewer's input on another instance travels to it over the bus.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import type { Db } from '../db/db.ts';
import type { Desktop, DesktopInput } from '../desktop/index.ts';
import { addMessage } from '../threads/messages.ts';
import {
  addKeyframeBytes, clearAudio, getRecording, insertRecording, markStopped, markSummarized, openRecording, ownRecording, recordingBySession, setAudio,
  type RecordingRow,
} from './store.ts';
import { appendUserInput, createThread, getThread } from '../threads/threads.ts';
import type { AgentStorage } from '../agents/storage.ts';
import { receiveRaw, type BodyCheck } from '../files/raw-body.ts';
import type { FileSystem } from '../files/safe-write.ts';
import { MAX_UPLOAD_BYTES } from '../files/storage.ts';
import { HttpError } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Log } from '../ops/log.ts';
import { ActiveRecording } from './active-recording.ts';
import { InputRelay } from './input-relay.ts';
import { buildSummary } from './summary.ts';
import type { BlobStore } from '../storage/index.ts';
import { audioExtension, type Transcriber } from './transcriber.ts';

export const AUTO_STOP_PREFIX = 'Recording automatically stopped';
export const DEFAULT_MAX_SECONDS = 600;

export type RecordingsOptions = {
  db: Db;
  bus: Bus;
  log: Log;
  /** $DATA_DIR/files: audio is received into a file there before it goes to the store. */
  filesDir: string;
  /** Where recordings are kept: agent-<id>/recordings/<session id>/ (deleted with the agent). */
  blobs: BlobStore;
  /** The agent's running desktop, if any. */
  desktop: (agentId: number) => Desktop | null;
  transcriber: Transcriber | null;
  /** RECORDING_MAX_SECONDS. @default 600 */
  maxSeconds?: number;
  /** The agents' storage quota, which audio and keyframes count against; without it they are not limited (tests). */
  storage?: AgentStorage;
  /** Where audio is received (tests pass a failing one). @default node:fs */
  fs?: FileSystem;
  /** With several instances: this one, and a signed call to another (undefined when that one is not alive). */
  fleet?: RecordingFleet | null;
  /** Makes the agent's desktop reachable from here before recording (with a fleet: relayed from its holder). */
  warm?: (agentId: number) => Promise<unknown>;
};

export type RecordingFleet = {
  instanceId: string;
  call(instanceId: string, method: string, path: string, body?: IncomingMessage, headers?: Record<string, string>): Promise<unknown | undefined>;
};

export const recordingDir = (agentId: number, sessionId: string) => `agent-${agentId}/recordings/${sessionId}`;

export function autoStopText(seconds: number): string {
  const length = seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} seconds`;
  return `${AUTO_STOP_PREFIX} after ${length}, the longest a recording may run. What was recorded until then is being summarised.`;
}

export class Recordings {
  /** Audio bodies over this are refused (413); the upload cap of spec §9. Tests lower it. */
  maxAudioBytes = MAX_UPLOAD_BYTES;
  readonly maxSeconds: number;
  /** The running recording of each agent, which gets its input. */
  private active = new Map<number, ActiveRecording>();
  /** Recordings of this instance from start until their audio arrived (stop may still be writing). */
  private sessions = new Map<string, ActiveRecording>();
  private jobs = new Set<Promise<void>>();
  private shutdown = new AbortController();
  /** With several instances: input of viewers here for a recording elsewhere, and theirs for one here. */
  private relay: InputRelay | null = null;

  constructor(private o: RecordingsOptions) {
    this.maxSeconds = o.maxSeconds ?? DEFAULT_MAX_SECONDS;
    if (o.fleet) {
      this.relay = new InputRelay(o.bus, o.fleet.instanceId, {
        input: (agentId, event) => this.active.get(agentId)?.input(event),
        dropped: (agentId, name) => this.active.get(agentId)?.dropped(name),
      });
    }
  }

  /**
   * Starts recording the agent's desktop for the user; a recording of the agent still running ends first.
   * `db`: the request's (requestDb), whose transactions name who started and stopped what.
   */
  async start(db: Db, userId: number, agentId: number, threadId: number | null): Promise<RecordingRow> {
    const previous = this.active.get(agentId);
    const row = previous && (await getRecording(this.o.db, previous.o.id));
    if (row) await this.finish(row, false, db);
    // Also one left open by a server that stopped meanwhile, or by a page that went away.
    let open: RecordingRow | null;
    while ((open = await openRecording(this.o.db, userId, agentId))) {
      if ((await this.elsewhere(open, 'POST', `/internal/recordings/${open.session_id}/stop`)) === undefined) await this.finish(open, false, db);
    }

    const sessionId = randomUUID();
    await this.o.warm?.(agentId).catch(() => {});
    const instanceId = this.o.fleet?.instanceId ?? null;
    const created = await insertRecording(db, { sessionId, userId, agentId, threadId, startedAt: new Date(), instanceId });
    const recording: ActiveRecording = new ActiveRecording({
      id: created.id, sessionId, agentId, userId, startedAt: new Date(created.started_at),
      blobs: this.o.blobs, folder: recordingDir(agentId, sessionId),
      maxMs: this.maxSeconds * 1000,
      desktop: () => this.o.desktop(agentId),
      onMaxLength: () => void this.autoStop(recording),
      log: this.o.log.error,
      account: this.o.storage && ((bytes) => this.accountKeyframe(created.id, agentId, bytes)),
    });
    this.active.set(agentId, recording);
    this.sessions.set(sessionId, recording);
    this.relay?.announce(agentId, true);
    return created;
  }

  /** Stops the user's recording of the agent: the one with that session id, else the open one. `db`: as start's. */
  async stop(db: Db, userId: number, agentId: number, sessionId?: string): Promise<RecordingRow> {
    const row = sessionId ? await ownRecording(this.o.db, userId, sessionId) : await openRecording(this.o.db, userId, agentId);
    if (!row || row.agent_id !== agentId) {
      throw sessionId ? new HttpError(404, 'Recording session not found') : new HttpError(409, 'No recording is running for this agent');
    }
    const elsewhere = await this.elsewhere(row, 'POST', `/internal/recordings/${row.session_id}/stop?${this.relay?.sentSoFar(agentId) ?? ''}`);
    if (elsewhere !== undefined) return elsewhere as RecordingRow;
    return this.finish(row, false, db);
  }

  /**
   * A stop passed on by another instance (internal route): the recording is this instance's. The input that
   * instance passed on over the bus before is waited for (up to 3 s), so that no action is lost to the race.
   */
  async stopHere(sessionId: string, auto = false, after?: { from: string; seq: number }): Promise<RecordingRow> {
    const row = await recordingBySession(this.o.db, sessionId);
    if (after) await this.relay?.receivedUpTo(after.from, row.agent_id, after.seq);
    return this.finish(row, auto);
  }

  /**
   * The answer of the instance that records `row` to the same call, when that is another live instance;
   * undefined when it is this one, or when the recorder is gone (this one then does what it can).
   */
  private async elsewhere(row: RecordingRow, method: string, path: string, body?: IncomingMessage, headers?: Record<string, string>) {
    const fleet = this.o.fleet;
    if (!fleet || !row.instance_id || row.instance_id === fleet.instanceId) return undefined;
    return fleet.call(row.instance_id, method, path, body, headers);
  }

  input(agentId: number, event: DesktopInput): void {
    const here = this.active.get(agentId);
    if (here) here.input(event);
    else this.relay?.input(agentId, event);
  }

  /** Whether a recording of the agent's desktop runs on this instance (a take-over then is a demonstration). */
  isRecording(agentId: number): boolean {
    return this.active.has(agentId);
  }

  /** A file put on the agent's desktop (the upload route). */
  dropped(agentId: number, name: string): void {
    const here = this.active.get(agentId);
    if (here) here.dropped(name);
    else this.relay?.dropped(agentId, name);
  }

  /** Marks it stopped (once) and writes its action log when this instance recorded it. */
  private async finish(row: RecordingRow, auto: boolean, db = this.o.db): Promise<RecordingRow> {
    const recording = this.sessions.get(row.session_id);
    if (recording && this.active.get(row.agent_id) === recording) {
      this.active.delete(row.agent_id);
      this.relay?.announce(row.agent_id, false);
    }
    // One already stopped is not written again (audio may arrive while the database cannot write).
    const stopped = row.stopped_at ? row : await markStopped(db, row.id, new Date(), auto);
    await recording?.finish(new Date(stopped.stopped_at!));
    return stopped;
  }

  /** A keyframe's bytes counted against the agent's quota before it is written (QuotaExceeded: not written), or given back. */
  private async accountKeyframe(id: number, agentId: number, bytes: number): Promise<void> {
    const { db, storage } = this.o;
    if (bytes < 0 || !storage) return addKeyframeBytes(db, id, bytes);
    await db.tx(async (q) => {
      await storage.ensure(q, agentId, bytes);
      await addKeyframeBytes(q, id, bytes);
    });
  }

  private async autoStop(recording: ActiveRecording): Promise<void> {
    try {
      const row = await getRecording(this.o.db, recording.o.id);
      if (!row || row.stopped_at) return;
      const stopped = await this.finish(row, true);
      await addMessage(this.o.db, this.o.bus, {
        agent_id: stopped.agent_id, thread_id: stopped.thread_id, role: 'assistant', assistant_data: { text: autoStopText(this.maxSeconds) },
      });
    } catch (err) {
      this.o.log.error(`recording ${recording.sessionId}: automatic stop failed: ${(err as Error).stack ?? err}`);
    }
  }

  /**
   * The recording's audio (any length, 0 bytes when none was captured): stored beside its action log, then
   * the summary is made in the background. Audio also ends a recording that was not stopped yet. The body may
   * bring what is left of the agent's storage quota at most (else 413, nothing kept); a full disk is 507.
   */
  async receiveAudio(userId: number, sessionId: string, req: IncomingMessage, contentType: string): Promise<{ session_id: string; received_bytes: number }> {
    const row = await ownRecording(this.o.db, userId, sessionId);
    if (row.audio_bytes !== null) throw new HttpError(409, 'The audio of this recording was already received');
    const path = `/internal/recordings/${row.session_id}/audio?${this.relay?.sentSoFar(row.agent_id) ?? ''}`;
    const elsewhere = await this.elsewhere(row, 'POST', path, req, { 'X-Audio-Type': contentType });
    if (elsewhere !== undefined) return elsewhere as { session_id: string; received_bytes: number };
    return this.takeAudio(row, req, contentType);
  }

  /** Audio passed on by another instance (internal route): the recording is this instance's. */
  async audioHere(sessionId: string, req: IncomingMessage, contentType: string, after?: { from: string; seq: number }, check?: BodyCheck) {
    const row = await recordingBySession(this.o.db, sessionId);
    if (after) await this.relay?.receivedUpTo(after.from, row.agent_id, after.seq);
    return this.takeAudio(row, req, contentType, check);
  }

  /** `check`: the signature's, for audio passed on by another instance (a body it refuses is not kept). */
  private async takeAudio(
    row: RecordingRow, req: IncomingMessage, contentType: string, check?: BodyCheck,
  ): Promise<{ session_id: string; received_bytes: number }> {
    if (row.audio_bytes !== null) throw new HttpError(409, 'The audio of this recording was already received');
    row = await this.finish(row, false);
    const rel = `${recordingDir(row.agent_id, row.session_id)}/audio.${audioExtension(contentType)}`;
    const partial = join(this.o.filesDir, `${rel}.${randomUUID()}.partial`);
    await mkdir(dirname(partial), { recursive: true, mode: 0o700 });
    const limit = (await this.o.storage?.limit(row.agent_id, this.maxAudioBytes)) ?? { bytes: this.maxAudioBytes };
    const bytes = await receiveRaw(req, partial, { ...limit, fs: this.o.fs, check }, 'Audio');
    const agentId = row.agent_id;
    const id = row.id;
    const stored = await this.o.db.tx(async (q) => {
      // Again under the agent's lock: uploads or other audio may have arrived meanwhile.
      await this.o.storage?.ensure(q, agentId, bytes);
      return setAudio(q, id, rel, contentType, bytes);
    }).catch(async (err) => {
      await unlink(partial).catch(() => {});
      throw err;
    });
    if (!stored) {
      await unlink(partial).catch(() => {});
      throw new HttpError(409, 'The audio of this recording was already received');
    }
    await this.keepAudio(partial, rel).catch(async (err) => {
      // Not kept (a store that fails: 503): the slot is given back, so that the page may send it again.
      await unlink(partial).catch(() => {});
      await clearAudio(this.o.db, id, rel).catch(() => {});
      throw err;
    });
    this.sessions.delete(row.session_id);
    this.track(this.summarize(row.id));
    return { session_id: row.session_id, received_bytes: bytes };
  }

  /** The received audio into the store: renamed into place on the local one, else put and removed from this disk. */
  private async keepAudio(partial: string, key: string): Promise<void> {
    const { blobs } = this.o;
    if (blobs.localPath) return rename(partial, blobs.localPath(key));
    await blobs.put(key, createReadStream(partial));
    await unlink(partial);
  }

  private track(job: Promise<void>): void {
    const tracked = job.catch((err) => this.o.log.error(`recording summary failed: ${(err as Error).stack ?? err}`)).finally(() => this.jobs.delete(tracked));
    this.jobs.add(tracked);
  }

  private async summarize(id: number): Promise<void> {
    const { db, bus } = this.o;
    const row = await getRecording(db, id);
    if (!row || row.summarized_at) return;
    const summary = await buildSummary(row, {
      blobs: this.o.blobs, relDir: recordingDir(row.agent_id, row.session_id), transcriber: this.o.transcriber,
      signal: this.shutdown.signal, log: this.o.log.error,
    });
    if (this.shutdown.signal.aborted) return;
    const thread = row.thread_id !== null ? await getThread(db, row.thread_id) : null;
    const threadId = thread ? row.thread_id! : (await createThread(db, bus, row.agent_id, { name: 'Demonstration' })).id;
    await appendUserInput(db, bus, threadId, summary.text, [], summary.images);
    await markSummarized(db, id, threadId);
  }

  /** Resolves once no summary is being made (tests). */
  async idle(): Promise<void> {
    while (this.jobs.size) await Promise.allSettled([...this.jobs]);
  }

  /** Stops the running recordings (their logs are written) and ends summaries under way. */
  async close(): Promise<void> {
    for (const recording of [...this.active.values()]) {
      const row = await getRecording(this.o.db, recording.o.id).catch(() => null);
      if (row) await this.finish(row, false).catch(() => {});
    }
    this.shutdown.abort();
    await this.idle();
  }
}

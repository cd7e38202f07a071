// One recording while it runs: the person's input through the tunnel becomes actions (ActionTracker), each
// new action gets a PNG keyframe of the desktop (at most one a second, from the live framebuffer), and a
// timer ends it at the maximum length. finish() writes the action log beside the keyframes, in the blob store
// (each keyframe is put as it is taken: a few hundred KB at most once a second). Only input of the recording user
// counts (the gateway already passes only the viewer holding control).
import type { Desktop, DesktopInput } from '../desktop/index.ts';
import { QuotaExceeded } from '../agents/uploads.ts';
import type { BlobStore } from '../storage/index.ts';
import { ActionTracker, type Action } from './action-tracker.ts';

export const KEYFRAME_INTERVAL_MS = 1000;

/** actions.json in the recording's folder: what summary.ts reads. */
export type ActionLog = {
  session_id: string;
  started_at: string;
  stopped_at: string;
  screen: { width: number; height: number } | null;
  actions: Action[];
};

export type ActiveRecordingOptions = {
  id: number;
  sessionId: string;
  agentId: number;
  userId: number;
  startedAt: Date;
  /** Where keyframes/ and actions.json go: the store, and the recording's folder in it (a key prefix, no trailing '/'). */
  blobs: BlobStore;
  folder: string;
  maxMs: number;
  /** The agent's running desktop, if any (looked up per keyframe). */
  desktop: () => Desktop | null;
  onMaxLength: () => void;
  log: (msg: string) => void;
  /** Counts a keyframe's bytes in the agent's storage before it is written (throws when they do not fit), or gives them back. */
  account?: (bytes: number) => Promise<void>;
};

export class ActiveRecording {
  readonly tracker: ActionTracker;
  private screen: { width: number; height: number } | null = null;
  private lastKeyframe = -Infinity;
  private keyframes = 0;
  private writes = new Set<Promise<void>>();
  private timer: NodeJS.Timeout;
  private stoppedAt: Date | null = null;
  private finished: Promise<ActionLog> | null = null;
  private quotaLogged = false;

  constructor(readonly o: ActiveRecordingOptions) {
    this.tracker = new ActionTracker(o.startedAt.getTime());
    this.timer = setTimeout(() => o.onMaxLength(), o.maxMs);
    this.timer.unref();
  }

  get sessionId(): string {
    return this.o.sessionId;
  }

  input(event: DesktopInput): void {
    if (this.stoppedAt || event.userId !== this.o.userId) return;
    const action = this.tracker.input(event);
    if (action) this.keyframe(action, event.at);
  }

  dropped(name: string, at = Date.now()): void {
    if (this.stoppedAt) return;
    this.keyframe(this.tracker.drop(name, at), at);
  }

  /** The screen as the person saw it when the action began. */
  private keyframe(action: Action, at: number): void {
    const desktop = this.o.desktop();
    if (!desktop || at - this.lastKeyframe < KEYFRAME_INTERVAL_MS) return;
    this.lastKeyframe = at;
    this.screen = { width: desktop.width, height: desktop.height };
    const file = `keyframes/${String(++this.keyframes).padStart(4, '0')}.png`;
    const write = desktop.screenshot()
      .then((png) => this.store(file, png))
      .then(() => void (action.keyframe = file))
      .catch((err) => {
        if (err instanceof QuotaExceeded && this.quotaLogged) return;
        this.quotaLogged ||= err instanceof QuotaExceeded; // once a recording: it would repeat every second
        this.o.log(`recording ${this.o.sessionId}: keyframe not written: ${(err as Error).message}`);
      })
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Counted in the agent's quota first; a failed write takes nothing and gives the bytes back. */
  private async store(file: string, png: Buffer): Promise<void> {
    await this.o.account?.(png.length);
    try {
      await this.o.blobs.put(`${this.o.folder}/${file}`, png, { contentType: 'image/png' });
    } catch (err) {
      await this.o.account?.(-png.length).catch(() => {});
      throw err;
    }
  }

  /**
   * Stops taking input, waits for keyframes under way and writes actions.json; once. When that write fails (a full
   * disk: OutOfSpace, 507; a store that fails: StorageUnavailable, 503) the next call tries again.
   */
  finish(stoppedAt: Date): Promise<ActionLog> {
    this.stoppedAt ??= stoppedAt;
    clearTimeout(this.timer);
    const attempt = (this.finished ??= this.writeLog(this.stoppedAt).catch((err) => {
      if (this.finished === attempt) this.finished = null;
      throw err;
    }));
    return attempt;
  }

  private writeLog(stoppedAt: Date): Promise<ActionLog> {
    return (async () => {
      await Promise.allSettled([...this.writes]);
      const desktop = this.o.desktop();
      const log: ActionLog = {
        session_id: this.o.sessionId,
        started_at: this.o.startedAt.toISOString(),
        stopped_at: stoppedAt.toISOString(),
        screen: this.screen ?? (desktop ? { width: desktop.width, height: desktop.height } : null),
        actions: this.tracker.actions,
      };
      const body = Buffer.from(JSON.stringify(log, null, 1));
      await this.o.blobs.put(`${this.o.folder}/actions.json`, body, { contentType: 'application/json' });
      return log;
    })();
  }
}

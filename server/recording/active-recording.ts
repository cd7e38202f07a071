// One recording while it runs: the person's input through the tunnel becomes actions (ActionTracker), each
// new action gets a PNG keyframe of the desktop (at most one a second, from the live framebuffer), and a
// timer ends it at the maximum length. finish() writes the action log beside the keyframes. Only input of
// the recording user counts (the gateway already passes only the viewer holding control).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Desktop, DesktopInput } from '../desktop/index.ts';
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
  /** The recording's folder (keyframes/ and actions.json go there). */
  dir: string;
  maxMs: number;
  /** The agent's running desktop, if any (looked up per keyframe). */
  desktop: () => Desktop | null;
  onMaxLength: () => void;
  log: (msg: string) => void;
};

export class ActiveRecording {
  readonly tracker: ActionTracker;
  private screen: { width: number; height: number } | null = null;
  private lastKeyframe = -Infinity;
  private keyframes = 0;
  private writes = new Set<Promise<void>>();
  private timer: NodeJS.Timeout;
  private finished: Promise<ActionLog> | null = null;

  constructor(readonly o: ActiveRecordingOptions) {
    this.tracker = new ActionTracker(o.startedAt.getTime());
    this.timer = setTimeout(() => o.onMaxLength(), o.maxMs);
    this.timer.unref();
  }

  get sessionId(): string {
    return this.o.sessionId;
  }

  input(event: DesktopInput): void {
    if (this.finished || event.userId !== this.o.userId) return;
    const action = this.tracker.input(event);
    if (action) this.keyframe(action, event.at);
  }

  dropped(name: string, at = Date.now()): void {
    if (this.finished) return;
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
      .then((png) => writeFile(join(this.o.dir, file), png, { mode: 0o600 }))
      .then(() => void (action.keyframe = file))
      .catch((err) => this.o.log(`recording ${this.o.sessionId}: keyframe not written: ${(err as Error).message}`))
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Stops taking input, waits for keyframes under way and writes actions.json; once. */
  finish(stoppedAt: Date): Promise<ActionLog> {
    return (this.finished ??= (async () => {
      clearTimeout(this.timer);
      await Promise.allSettled([...this.writes]);
      const desktop = this.o.desktop();
      const log: ActionLog = {
        session_id: this.o.sessionId,
        started_at: this.o.startedAt.toISOString(),
        stopped_at: stoppedAt.toISOString(),
        screen: this.screen ?? (desktop ? { width: desktop.width, height: desktop.height } : null),
        actions: this.tracker.actions,
      };
      await writeFile(join(this.o.dir, 'actions.json'), JSON.stringify(log, null, 1), { mode: 0o600 });
      return log;
    })());
  }

  static async prepare(dir: string): Promise<void> {
    await mkdir(join(dir, 'keyframes'), { recursive: true, mode: 0o700 });
  }
}

// Hand back with context (issue 19): from the moment a person takes control of an agent's desktop until they hand
// it back, their input that reached it becomes an action log (the demonstrations' ActionTracker), each click with
// the title of the window under it when the desktop can tell (typing with the window clicked last); handing back
// writes it, with a fresh screenshot, as one user-side step of the thread waiting for them (else the queue's head,
// else the latest thread), which its next model call receives. Handing back a thread that waited for a person
// answers it: needs_help clears and the agent runs again. A lease that runs out (the person's page went away for
// more than 30 s) writes the log too, but answers nothing. A take-over that recorded a demonstration writes nothing:
// its summary tells the agent. Driven by the gateway's 'control' and 'input' events.
// From the moment control ends until the hand-back is written (it waits for the clicks' window lookups and a
// screenshot), the agent is held: the runner claims none of its threads (held()), so a message sent right after
// handing back runs with the hand-back before it, not before the hand-back is written.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db.ts';
import type { ControlEvent, Desktop, DesktopInput } from '../desktop/index.ts';
import { handBackThread } from './supervision.ts';
import { announceAnswered, answerHelp, threadNeedingHelp } from '../threads/needs-help.ts';
import { announceInput, enqueue, insertUserInput, lockAgents, type UserInput } from '../threads/threads.ts';
import type { StepImage } from '../threads/steps.ts';
import type { Log } from '../ops/log.ts';
import type { Bus } from '../realtime/bus.ts';
import { ActionTracker } from '../recording/action-tracker.ts';
import { formatHandback, HANDBACK_SCREEN_CAPTION, type HandbackAction } from './handback-format.ts';
import { HoverLookup } from '../recording/hover-lookup.ts';
import { recordingDir } from '../recording/recordings.ts';
import { TOPICS } from '../realtime/topics.ts';
import type { BlobStore } from '../storage/index.ts';

export type HandbacksOptions = {
  db: Db;
  bus: Bus;
  log: Log;
  /** The blob store: the screenshot goes with the agent's recordings (where step images are read from), on any instance. */
  blobs: BlobStore;
  /** The agent's running desktop, if any. */
  desktop: (agentId: number) => Desktop | null;
  /** Whether the agent's desktop is being recorded: a demonstration's summary tells the agent, not a hand-back. */
  recording?: (agentId: number) => boolean;
};

type Takeover = {
  userId: number; startedAt: number; tracker: ActionTracker; demonstration: boolean;
  /** Window lookups under way; the title of the window last clicked (typing goes there). */
  lookups: Set<Promise<void>>; lastWindow: string | null;
  /** The window under the pointer while it rests, so that a click there need not ask the desktop at once. */
  hover: HoverLookup;
};

export class Handbacks {
  private takeovers = new Map<number, Takeover>();
  private jobs = new Set<Promise<void>>();
  /** Hand-backs being written, per agent: the runner holds these agents' runs until they are. */
  private writing = new Map<number, Set<Promise<void>>>();

  constructor(private o: HandbacksOptions) {}

  /** The gateway's 'control' event: a take-over begins (or goes on in another tab of the same person), or ends. */
  control(agentId: number, event: ControlEvent): void {
    const current = this.takeovers.get(agentId);
    if (event.state === 'taken') {
      if (current?.userId === event.userId) return; // a reload, or another tab of the same person: the same take-over
      if (current) this.track(agentId, this.finish(agentId, true));
      const startedAt = Date.now();
      const demonstration = this.o.recording?.(agentId) ?? false;
      this.takeovers.set(agentId, {
        userId: event.userId, startedAt, tracker: new ActionTracker(startedAt), demonstration, lookups: new Set(), lastWindow: null,
        hover: new HoverLookup(() => this.o.desktop(agentId)),
      });
      return;
    }
    if (current?.userId === event.userId) this.track(agentId, this.finish(agentId, event.state === 'released'));
  }

  /** The gateway's 'input' event: only the person in control counts. */
  input(agentId: number, event: DesktopInput): void {
    const t = this.takeovers.get(agentId);
    if (!t || event.userId !== t.userId) return;
    t.demonstration ||= this.o.recording?.(agentId) ?? false;
    if (event.kind === 'mouse') t.hover.moved(event.x, event.y, event.mask);
    const began = t.tracker.input(event) as HandbackAction | null;
    if (!began) return;
    if (began.kind === 'type') {
      // Typing goes to the window clicked last (as far as the log knows); a password prompt's title masks it.
      const pending = [...t.lookups];
      const lookup = Promise.allSettled(pending).then(() => void (began.window = t.lastWindow ?? undefined));
      this.lookup(t, lookup);
    } else if ((began.kind === 'click' || began.kind === 'scroll') && began.x !== undefined && began.y !== undefined) {
      const asked = t.hover.windowAt(began.x, began.y);
      if (!asked) return;
      this.lookup(t, asked.then((title) => {
        if (title) began.window = title;
        if (began.kind !== 'scroll') t.lastWindow = title;
      }));
    }
  }

  private lookup(t: Takeover, job: Promise<void>): void {
    const tracked = job.catch(() => {}).finally(() => t.lookups.delete(tracked));
    t.lookups.add(tracked);
  }

  /** A file dropped on the desktop while someone has control. */
  dropped(agentId: number, name: string): void {
    this.takeovers.get(agentId)?.tracker.drop(name, Date.now());
  }

  /** Whether a take-over of the agent's desktop is under way (tests). */
  active(agentId: number): boolean {
    return this.takeovers.has(agentId);
  }

  /** Resolves once no hand-back is being written (tests). */
  async idle(): Promise<void> {
    while (this.jobs.size) await Promise.allSettled([...this.jobs]);
  }

  /** Agents whose hand-back is being written: their next run waits for it (the runner's claim leaves them out). */
  held(): number[] {
    return [...this.writing.keys()];
  }

  /** Resolves once the agent's hand-back, if one is being written, is written (or failed). */
  async written(agentId: number): Promise<void> {
    for (let jobs; (jobs = this.writing.get(agentId)); ) await Promise.allSettled([...jobs]);
  }

  /** Runs a hand-back's writing; the agent is held from now (synchronously, as control ends) until it is done. */
  private track(agentId: number, job: Promise<void>): void {
    const jobs = this.writing.get(agentId) ?? new Set();
    this.writing.set(agentId, jobs);
    const tracked: Promise<void> = job
      .catch((err) => this.o.log.error(`hand-back failed: ${(err as Error).stack ?? err}`))
      .finally(() => {
        this.jobs.delete(tracked);
        jobs.delete(tracked);
        if (jobs.size || this.writing.get(agentId) !== jobs) return;
        this.writing.delete(agentId);
        // The run held meanwhile (or resumed by the hand-back) starts now, not at the runner's next poll.
        this.o.bus.publish(TOPICS.runnerWake, { agent_id: agentId });
      });
    this.jobs.add(tracked);
    jobs.add(tracked);
  }

  /** Writes the take-over's log into the thread; `handBack`: the person handed back on purpose (answers the thread). */
  private async finish(agentId: number, handBack: boolean): Promise<void> {
    const t = this.takeovers.get(agentId);
    if (!t) return;
    this.takeovers.delete(agentId);
    t.hover.dispose();
    if (t.demonstration) return; // recorded: the demonstration's summary reaches the thread instead
    while (t.lookups.size) await Promise.allSettled([...t.lookups]);
    const { db, bus } = this.o;
    const waiting = await threadNeedingHelp(db, agentId);
    const threadId = waiting ?? (await handBackThread(db, agentId));
    const actions = t.tracker.actions;
    // Nothing done and nobody waiting: there is nothing to tell.
    if (threadId === null || (!actions.length && waiting === null)) return;
    const desktop = this.o.desktop(agentId);
    const text = formatHandback({
      durationMs: Date.now() - t.startedAt, actions, screen: desktop ? { width: desktop.width, height: desktop.height } : null,
    });
    const images = desktop ? await this.screenshot(agentId, desktop) : [];
    const answer = handBack && waiting !== null;
    const written = await db.tx(async (q) => {
      if (answer) await lockAgents(q, [agentId]);
      const input: UserInput = await insertUserInput(q, threadId, text, [], images);
      if (!answer) return input;
      await enqueue(q, threadId, agentId);
      return { ...input, answered: await answerHelp(q, threadId) };
    });
    announceInput(bus, written);
    if (written.answered) {
      bus.publish(TOPICS.threadChanged(threadId), { id: threadId, needs_help: null });
      announceAnswered(bus, written.answered);
    }
  }

  /** The desktop as the person left it, stored with the agent's recordings; none when it cannot be taken. */
  private async screenshot(agentId: number, desktop: Desktop): Promise<StepImage[]> {
    try {
      const png = await desktop.screenshot();
      const path = `${recordingDir(agentId, `handback-${randomUUID()}`)}/screen.png`;
      await this.o.blobs.put(path, png, { contentType: 'image/png' });
      return [{ path, caption: HANDBACK_SCREEN_CAPTION }];
    } catch (err) {
      this.o.log.error(`hand-back of agent ${agentId}: no screenshot: ${(err as Error).message}`);
      return [];
    }
  }
}

// The runner: claims the head of each playing agent's queue, runs the conversation on it, and ends
// the thread's turn. It wakes on the bus topic TOPICS.runnerWake and on a short interval.
//
// - run (play): work the queue head, then set the agent back to stop (it waits);
//   run_all (fast): keep taking the next head until the queue is empty.
// - Stop: `thread:<id>:stop` or the agent set to stop aborts the current model call or action
//   (AbortSignal). A stopped thread leaves the queue; a thread interrupted by stopping the agent
//   stays at the head and resumes when the agent plays again.
// - Failures (model, tool, spend limit) leave error_message on the thread and an 'error' message
//   in the feed; the thread leaves the queue and the agent is set to stop.
// - Restarts: a graceful shutdown pauses runs (the thread stays queued and resumes on the next
//   start). Runs of an instance that died are failed with 'Interrupted by a server restart' by
//   whichever instance notices first, at start and then periodically: at once when the dead
//   instance ran on this host (its pid is gone), else when its heartbeat (db/instance.ts) is staleSeconds old —
//   no thread stays "running" forever.
import type { Db, Queryable } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Log } from '../ops/log.ts';
import { DesktopsFull, type Desktop, type Desktops, type PerformAction } from '../desktop/index.ts';
import type { GrantedCredential } from './tools/types.ts';
import type { ModelProvider, ModelRequest } from '../models/types.ts';
import { addMessage } from '../threads/messages.ts';
import { getRunAgent, stopAgentAfterRun } from '../agents/agents.ts';
import { getThreadName, removeFromSchedule, threadExists } from '../threads/threads.ts';
import { hasUserInputAfter, stepsToReplay, userInputAfter } from '../threads/steps.ts';
import {
  claimNext, claimState, refreshAgentState, releaseClaim, runOwners, takeOrphans, type Claim,
} from './claim.ts';
import { converse, type LoopDeps } from './conversation.ts';
import { RunFailure, RunPaused, RunStopped, SpendRefused, stopOf, type StopReason } from './errors.ts';
import { record, recordAlone, SYSTEM } from '../audit/audit.ts';
import { RunawayGuard } from '../supervision/guard.ts';
import { emitThreadEvent, queueThreadEvent, wakeDeliveries, type EventType } from '../webhooks/index.ts';
import { getGuardSettings, GUARD_DEFAULTS, usageSinceHuman } from '../supervision/supervision.ts';
import { setNeedsHelp, type NeedsHelp, type PauseReason } from '../threads/needs-help.ts';
import { messagesFromSteps, systemPrompt, type StoredStep } from './history.ts';
import { refusal, reserveSpend, settleSpend, spendState } from '../billing/index.ts';
import { loadStepImages } from './step-images.ts';
import { StepWriter } from './steps.ts';
import { Instance, retireInstance } from '../db/instance.ts';
import { TOPICS } from '../realtime/topics.ts';
import type { BlobStore } from '../storage/index.ts';
import { endRun, failOpenRuns, openRun, type OpenRun, type RecordRun, type RunOutcome, type RunRecording } from './runs.ts';

/** The options a runner may go without (none: that part is left out). */
type Injected = 'desktops' | 'performAction' | 'filesDir' | 'blobs' | 'onNeedsHelp' | 'helpLink' | 'held' | 'recordRun';

export type RunnerOptions = {
  db: Db;
  bus: Bus;
  log: Log;
  provider: ModelProvider;
  desktops?: Desktops | null;
  performAction?: PerformAction | null;
  mailDomain?: string;
  /** MAIL_SMTPUTF8 (the email tool's recipients). */
  smtpUtf8?: boolean;
  /** This server as the other instances see it (db/instance.ts); a runner of its own (tests) makes one. */
  instance?: Instance;
  /** The id of the instance a runner makes for itself. @default host:pid:random */
  instanceId?: string;
  /** Claim check interval. @default 1000 */
  pollMs?: number;
  /** An instance silent this long is dead. @default 30 */
  staleSeconds?: number;
  /** Threads run at once by this instance (one per agent at most). @default 8 */
  maxConcurrent?: number;
  /** Model calls per thread turn. @default 50 */
  maxTurns?: number;
  /** @default 60000 */
  desktopTimeoutMs?: number;
  /** Test credits a user gets once, in cents (BILLING_TEST_CREDITS_CENTS). @default 500 */
  testCreditsCents?: number;
  /** $DATA_DIR/files, where images of user input (recording keyframes) are; none: they are left out. */
  filesDir?: string | null;
  /** The blob store, where hand-back screenshots are (read before filesDir); none: filesDir only. */
  blobs?: BlobStore | null;
  /** A run paused to wait for a person (issue 19): tells the agent's owner (by e-mail); `link`: the pause's one-time link. */
  onNeedsHelp?: ((threadId: number, help: NeedsHelp, link: string | null) => Promise<void>) | null;
  /**
   * Makes the one-time link of a help request (server/push/help-links.ts) in the pause's transaction, so that the
   * notification queued with it carries it; its path in the app. None: no link.
   */
  helpLink?: ((q: Queryable, threadId: number) => Promise<string | null>) | null;
  /** Agents whose runs wait for now: a hand-back of their desktop is being written (Handbacks.held). */
  held?: (() => number[]) | null;
  /** Records the desktop of each run (server/replay); none: runs are not recorded. */
  recordRun?: RecordRun | null;
  /** The credential vault (server/vault); none: no fill_credential tool. Looked up per run: tests swap it. */
  vault?: (() => VaultPort | null) | null;
};

/** What a run needs of the vault: the agent's granted credentials, and a fill on its desktop. */
export type VaultPort = {
  granted(agentId: number): Promise<GrantedCredential[]>;
  fill(request: { agentId: number; threadId: number; name: string; field: string; desktop: Desktop | null; signal: AbortSignal }): Promise<string>;
};

type Outcome =
  | { kind: 'done' } | { kind: 'stopped'; reason: StopReason } | { kind: 'failed'; message: string }
  | { kind: 'paused'; question: string; reason: PauseReason };
type Active = { claim: Claim; controller: AbortController; done: Promise<void> };
/** The run of a claim, once it has work to do, and the recording of its desktop. */
type RunState = { open: OpenRun | null; recording: RunRecording | null };

const RUN_OUTCOME: Record<Outcome['kind'], RunOutcome> = { done: 'done', stopped: 'stopped', failed: 'failed', paused: 'paused' };

export const RESTART_ERROR = 'Interrupted by a server restart';
const COLD_SETTLE_QUIET_MS = 800;
const COLD_SETTLE_MAX_MS = 8000;
/** How often a run that waits for a desktop (all busy) asks again. */
const DESKTOP_RETRY_MS = 1000;
/** A desktop that shows its screen before its apps are up (issue 48): a run acts only once they are, or it would type into nothing. */
const withApps = async (desktop: Desktop): Promise<Desktop> => (await desktop.ready, desktop);

const STOP_NOTES: Record<StopReason, string> = {
  thread: 'Stopped.',
  agent: 'Stopped: the agent was set to stop. This thread continues when the agent runs again.',
  shutdown: 'Paused: the server is shutting down. This thread continues when it is back.',
  lost: '',
};

export class Runner {
  readonly id: string;
  private instance: Instance;
  private active = new Map<number, Active>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void)[] = [];
  private ticking: Promise<void> | null = null;
  private again = false;
  private running = false;
  private lastRecovery = 0;
  private o: Required<Omit<RunnerOptions, Injected | 'instance' | 'instanceId'>> & Pick<RunnerOptions, Injected>;

  constructor(options: RunnerOptions) {
    this.o = {
      mailDomain: 'localhost', testCreditsCents: 500, pollMs: 1000, staleSeconds: 30, maxConcurrent: 8, maxTurns: 50,
      desktopTimeoutMs: 60_000,
      ...options,
    } as Runner['o'];
    this.instance = options.instance ?? new Instance(options.db, options.instanceId, undefined, (m) => options.log.error(m));
    this.id = this.instance.id;
  }

  get provider(): ModelProvider {
    return this.o.provider;
  }

  /** Threads this instance is running now. */
  activeThreads(): number[] {
    return [...this.active.keys()];
  }

  async start(): Promise<void> {
    this.running = true;
    await this.instance.start();
    await this.recover();
    this.unsubscribe.push(this.o.bus.subscribe(TOPICS.runnerWake, () => this.wake()));
    this.timer = setInterval(() => this.wake(), this.o.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Aborts every run (they pause, see above), waits for their last writes, retires the instance. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe.splice(0).forEach((u) => u());
    await this.ticking; // a claim under way may still launch a run
    for (const a of this.active.values()) a.controller.abort(new RunStopped('shutdown'));
    await Promise.race([Promise.allSettled([...this.active.values()].map((a) => a.done)), new Promise((r) => setTimeout(r, 10_000).unref())]);
    await this.instance.stop();
  }

  wake(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves once nothing runs and no claim is under way (tests, bench). */
  async idle(): Promise<void> {
    while (this.ticking || this.active.size) {
      await this.ticking;
      await Promise.allSettled([...this.active.values()].map((a) => a.done));
    }
  }

  private async tick(): Promise<void> {
    try {
      const now = Date.now();
      if (now - this.lastRecovery >= (this.o.staleSeconds * 1000) / 2) await this.recover();
      while (this.running && this.active.size < this.o.maxConcurrent) {
        const claim = await claimNext(this.o.db, this.id, null, this.o.held?.() ?? []);
        if (!claim) break;
        this.launch(claim);
      }
    } catch (err) {
      this.o.log.error(`runner: ${(err as Error).stack ?? err}`);
    }
  }

  /** Fails the runs of dead instances. */
  async recover(): Promise<number> {
    this.lastRecovery = Date.now();
    const { db, bus } = this.o;
    await this.forgetDeadNeighbours();
    const orphans = await takeOrphans(db, this.id, this.o.staleSeconds);
    await failOpenRuns(db, orphans.map((t) => t.id));
    for (const t of orphans) {
      await removeFromSchedule(db, bus, t.id, t.agent_id);
      await addMessage(db, bus, { agent_id: t.agent_id, thread_id: t.id, role: 'error', assistant_data: { text: RESTART_ERROR } });
      await refreshAgentState(db, t.agent_id);
      bus.publish(TOPICS.agentChanged(t.agent_id), { agent_id: t.agent_id });
    }
    if (orphans.length) this.o.log.info(`runner: failed ${orphans.length} run(s) left by a stopped instance`);
    return orphans.length;
  }

  /**
   * Instances that own a run and are dead (Instance.isDead: on this host with their process gone, a crash then a
   * quick restart, count at once) leave the registry, so that their runs are taken as orphans now.
   */
  private async forgetDeadNeighbours(): Promise<void> {
    for (const owner of await runOwners(this.o.db, this.id, this.o.staleSeconds)) {
      if (this.instance.isDead(owner)) await retireInstance(this.o.db, owner.id);
    }
  }

  private launch(claim: Claim): void {
    const controller = new AbortController();
    const entry: Active = { claim, controller, done: Promise.resolve() };
    this.active.set(claim.thread_id, entry);
    entry.done = this.work(claim, controller)
      .catch((err) => this.o.log.error(`runner: thread ${claim.thread_id}: ${(err as Error).stack ?? err}`))
      .finally(() => {
        this.active.delete(claim.thread_id);
        this.wake();
      });
  }

  private async work(claim: Claim, controller: AbortController): Promise<void> {
    const { db, bus } = this.o;
    const { thread_id: threadId, agent_id: agentId } = claim;
    const abort = (reason: StopReason) => controller.abort(new RunStopped(reason));
    const subscriptions = [
      bus.subscribe(TOPICS.threadStop(threadId), () => abort('thread')),
      bus.subscribe(TOPICS.agentChanged(agentId), (p) => p.target_run_state === 'stop' && abort('agent')),
    ];
    bus.publish(TOPICS.agentChanged(agentId), { agent_id: agentId });
    const writer = new StepWriter(db, bus, agentId, threadId);
    const seen = { userSequence: Number.MAX_SAFE_INTEGER };
    const run: RunState = { open: null, recording: null };
    let outcome: Outcome;
    let failure: unknown;
    try {
      await this.converseOn(claim, controller, writer, seen, run);
      outcome = { kind: 'done' };
    } catch (err) {
      failure = err;
      if (!(await threadExists(db, threadId).catch(() => true))) outcome = { kind: 'stopped', reason: 'lost' };
      else if (err instanceof RunStopped) outcome = { kind: 'stopped', reason: err.reason };
      else if (err instanceof RunPaused && !controller.signal.aborted) outcome = { kind: 'paused', question: err.question, reason: err.reason };
      else if (controller.signal.aborted) outcome = { kind: 'stopped', reason: stopOf(controller.signal).reason };
      else if (err instanceof RunFailure) outcome = { kind: 'failed', message: err.message };
      else {
        this.o.log.error(`runner: thread ${threadId}: ${(err as Error).stack ?? err}`);
        outcome = { kind: 'failed', message: `Internal error: ${(err as Error).message}` };
      }
    } finally {
      subscriptions.forEach((u) => u());
    }
    if (outcome.kind === 'failed' && failure instanceof SpendRefused) {
      await recordAlone(db, {
        action: 'billing.limit_stop', actor: SYSTEM, background: true, target: { type: 'thread', id: threadId },
        detail: { agent_id: agentId, reason: failure.message },
      }).catch((err) => this.o.log.error(`runner: audit of the spend stop failed: ${err.message}`));
      await this.announce('billing.limit_reached', threadId, run.open?.id ?? null, { reason: failure.message, links: { billing: '/settings/billing' } });
    }
    try {
      await this.finish(claim, outcome, writer, seen.userSequence);
    } finally {
      const runId = run.open?.id;
      if (runId) await endRun(db, runId, RUN_OUTCOME[outcome.kind]).catch((err) => this.o.log.error(`runner: run ${runId} not ended: ${err.message}`));
      if (runId && outcome.kind === 'failed') await this.announce('run.failed', threadId, runId, { outcome: 'failed', error: outcome.message });
      else if (runId && outcome.kind !== 'paused' && !(outcome.kind === 'stopped' && outcome.reason === 'lost')) {
        await this.announce('run.finished', threadId, runId, { outcome: outcome.kind });
      }
      // Whatever happened above, the agent's flags end up true to what runs.
      await refreshAgentState(db, agentId).catch(() => {});
      bus.publish(TOPICS.agentChanged(agentId), { agent_id: agentId });
    }
  }

  /** Runs the conversation; returns the sequence of the last user input it answered. */
  private async converseOn(claim: Claim, controller: AbortController, writer: StepWriter, seen: { userSequence: number }, run: RunState): Promise<void> {
    const { db } = this.o;
    const agent = await getRunAgent(db, claim.agent_id);
    const threadName = await getThreadName(db, claim.thread_id);
    if (!agent || threadName === null) throw new RunStopped('lost');
    const steps = await stepsToReplay<StoredStep>(db, claim.thread_id);
    const conversation = messagesFromSteps(steps, await loadStepImages(steps, claim.agent_id, { blobs: this.o.blobs, filesDir: this.o.filesDir ?? null }));
    // Scheduled again without new input: nothing to answer.
    if (!conversation.length || conversation[conversation.length - 1].role === 'assistant') return;
    seen.userSequence = Math.max(0, ...steps.filter((s) => s.user_text || s.user_files?.length).map((s) => s.sequence));

    await this.checkpoint(claim, controller, agent.owner_id);
    run.open = await openRun(db, claim.thread_id, claim.agent_id, this.id);
    writer.runId = run.open.id;
    await this.announce('run.started', claim.thread_id, run.open.id);
    const { computer, release, desktop } = await this.desktopFor(claim.agent_id, controller.signal);
    try {
      if (desktop && computer) await this.record(run, desktop, computer);
      const guard = new RunawayGuard((await getGuardSettings(db, claim.agent_id)) ?? GUARD_DEFAULTS, await usageSinceHuman(db, claim.thread_id));
      const deps: LoopDeps = {
        db, bus: this.o.bus, log: this.o.log, provider: this.o.provider,
        agent: { id: agent.id, owner_id: agent.owner_id, name: agent.name, email_prefix: agent.email_prefix },
        threadId: claim.thread_id,
        runId: run.open.id,
        system: systemPrompt(agent, computer ? { width: computer.width, height: computer.height } : null),
        signal: controller.signal,
        computer,
        mailDomain: this.o.mailDomain,
        smtpUtf8: this.o.smtpUtf8,
        writer,
        maxTurns: this.o.maxTurns,
        checkpoint: () => this.checkpoint(claim, controller, agent.owner_id),
        reserve: (request) => this.reserve(agent.owner_id, request),
        guard,
        credentials: await this.credentials(agent.id, claim.thread_id, computer, controller.signal),
        newInput: async () => {
          const rows = await userInputAfter(db, claim.thread_id, seen.userSequence);
          if (rows.length) seen.userSequence = rows[rows.length - 1].sequence;
          return rows.map((r) => r.user_text);
        },
      };
      await converse(deps, conversation, `Main: ${threadName || `thread ${claim.thread_id}`}`);
    } finally {
      await run.recording?.stop().catch((err) => this.o.log.error(`runner: run ${run.open!.id}: recording not closed: ${err.message}`));
      release();
    }
  }

  /** The run's credentials: granted ones with a fill on the agent's desktop (acquired per fill, as actions are). */
  private async credentials(agentId: number, threadId: number, computer: LoopDeps['computer'], signal: AbortSignal): Promise<LoopDeps['credentials']> {
    const vault = this.o.vault?.();
    if (!vault || !computer) return undefined;
    const granted = await vault.granted(agentId);
    if (!granted.length) return undefined;
    return { granted, fill: async (name, field) => vault.fill({ agentId, threadId, name, field, desktop: await computer.acquire(), signal }) };
  }

  /** Records the run's desktop (when a recorder is set), with a frame of the screen each action left. */
  private async record(run: RunState, desktop: Desktop, computer: NonNullable<LoopDeps['computer']>): Promise<void> {
    if (!this.o.recordRun || !run.open) return;
    const perform = computer.perform;
    computer.perform = async (...args) => {
      const result = await perform(...args);
      await run.recording?.afterAction().catch(() => {}); // a recording that fails stops itself; the run goes on
      return result;
    };
    run.recording = await this.o.recordRun(run.open, desktop).catch((err) => {
      this.o.log.error(`runner: run ${run.open!.id}: not recorded: ${err.message}`);
      return null;
    });
  }

  /** Before each model call: still ours, not stopped, within the test credits or the monthly limit. */
  private async checkpoint(claim: Claim, controller: AbortController, ownerId: number): Promise<void> {
    if (controller.signal.aborted) throw stopOf(controller.signal);
    if (!this.running) throw new RunStopped('shutdown');
    const row = await claimState(this.o.db, claim.thread_id);
    if (!row || row.run_owner !== this.id) throw new RunStopped('lost');
    if (row.thread_state === 'stop') throw new RunStopped('thread');
    if (row.agent_state === 'stop') throw new RunStopped('agent');
    const refused = refusal(await spendState(this.o.db, ownerId, this.o.testCreditsCents));
    if (refused) throw new SpendRefused(refused);
  }

  /** Reserves the call's most it may cost against the owner's limit, shared by every agent and instance. */
  private async reserve(ownerId: number, request: ModelRequest): Promise<() => Promise<void>> {
    const { db, log } = this.o;
    const cents = (this.o.provider.estimate?.(request) ?? 0) * 100;
    const reserved = await reserveSpend(db, ownerId, this.o.testCreditsCents, cents);
    if ('refused' in reserved) throw new SpendRefused(reserved.refused);
    return () => settleSpend(db, reserved.id).catch((err) => log.error(`runner: spend reservation ${reserved.id} not settled: ${err.message}`));
  }

  /** The run's desktop, and `release` to call when the run ends (it lets other starts stop the desktop again). */
  private async desktopFor(agentId: number, signal: AbortSignal): Promise<{ computer: LoopDeps['computer']; release: () => void; desktop: Desktop | null }> {
    const { desktops, performAction } = this.o;
    if (!desktops || !performAction || !desktops.status().available) return { computer: null, release: () => {}, desktop: null };
    // Marked first: while this run waits for its desktop or works on it, no other start stops it to make room.
    const release = desktops.useForRun?.(agentId) ?? (() => {});
    try {
      const cold = desktops.running(agentId) === null;
      const desktop = await this.acquireInTurn(agentId, signal);
      // A desktop started just now is still mapping its windows (a browser taking the focus on its
      // way up): let the screen settle before the first action.
      if (cold && desktop.settle) await this.bounded(desktop.settle(COLD_SETTLE_QUIET_MS, COLD_SETTLE_MAX_MS), signal);
      const acquire = () => desktops.acquire(agentId).then(withApps);
      const computer = { width: desktop.width, height: desktop.height, acquire, perform: performAction };
      return { computer, release, desktop };
    } catch (err) {
      release();
      if (signal.aborted) throw stopOf(signal);
      throw new RunFailure(`The agent's desktop could not start: ${(err as Error).message}`, { cause: err });
    }
  }

  /**
   * The agent's desktop; while every desktop this server may run is busy (watched or used by a run), the run waits
   * for one, as runs queue for a model, rather than failing with "Too many desktops".
   */
  private async acquireInTurn(agentId: number, signal: AbortSignal) {
    const { desktops } = this.o;
    let told = false;
    for (;;) {
      try {
        return await this.bounded(desktops!.acquire(agentId).then(withApps), signal);
      } catch (err) {
        if (!(err instanceof DesktopsFull) || signal.aborted) throw err;
        if (!told) this.o.log.info(`runner: agent ${agentId} waits for a desktop: ${err.message}`);
        told = true;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DESKTOP_RETRY_MS);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (signal.aborted) throw stopOf(signal);
    }
  }

  /** `work`, given up after desktopTimeoutMs (a stop or a dead start must not hold the run forever) or on a stop. */
  private async bounded<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    const giveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.o.desktopTimeoutMs / 1000} s`)), this.o.desktopTimeoutMs);
      onAbort = () => reject(stopOf(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, giveUp]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The run waits for a person: the thread stays at the head of the queue with needs_help and the agent is set to
   * stop, with the claim's release in one transaction (an answer that comes right after sees all of it, so it lets
   * the agent run again); then the feed and the thread's viewers hear of it, and the owner gets an e-mail when mail
   * is set up. The one-time link (issue 47) is made in the transaction too: the notification queued with the event
   * and the e-mail carry it.
   */
  private async pause(claim: Claim, outcome: Extract<Outcome, { kind: 'paused' }>, writer: StepWriter): Promise<void> {
    const { db, bus, log } = this.o;
    const { thread_id: threadId, agent_id: agentId } = claim;
    const help: NeedsHelp = { question: outcome.question, asked_at: new Date().toISOString(), reason: outcome.reason, resume: claim.mode };
    const { stopped, link } = await db.tx(async (q) => {
      const changed = await stopAgentAfterRun(q, agentId, 'any');
      const made = (await this.o.helpLink?.(q, threadId)) ?? null;
      await setNeedsHelp(q, threadId, help);
      await releaseClaim(q, threadId, this.id, '');
      // The agent asked, or the runaway guard (the system) paused it; the question is the agent's text, kept out.
      await record(q, {
        action: outcome.reason === 'asked' ? 'run.help_request' : 'run.guard_pause',
        actor: outcome.reason === 'asked' ? { type: 'agent', id: agentId } : SYSTEM, background: true,
        target: { type: 'thread', id: threadId }, detail: { reason: outcome.reason, agent_id: agentId },
      });
      const event = outcome.reason === 'asked' ? 'run.needs_help' : 'run.guard_paused';
      await queueThreadEvent(q, event, threadId, writer.runId, { question: outcome.question, reason: outcome.reason });
      return { stopped: changed, link: made };
    });
    wakeDeliveries(bus);
    if (stopped) bus.publish(TOPICS.agentChanged(agentId), { agent_id: agentId, target_run_state: 'stop' });
    bus.publish(TOPICS.threadChanged(threadId), { id: threadId, needs_help: help });
    await writer.message('assistant', `Waiting for you: ${outcome.question}`, { needs_help: help });
    await this.o.onNeedsHelp?.(threadId, help, link).catch((err) => log.error(`runner: thread ${threadId}: owner not told: ${err.message}`));
  }

  /** Queues a webhook event of the thread (server/webhooks); a failure to queue it is logged, the run goes on. */
  private async announce(type: EventType, threadId: number, runId: number | null, extra?: Record<string, unknown>): Promise<void> {
    await emitThreadEvent(this.o.db, this.o.bus, type, threadId, runId, extra)
      .catch((err) => this.o.log.error(`runner: thread ${threadId}: webhook event ${type} not queued: ${err.message}`));
  }

  /** Ends the thread's turn as the outcome says, then goes on with the agent's queue (run_all). */
  private async finish(claim: Claim, outcome: Outcome, writer: StepWriter, answeredUserSequence: number): Promise<void> {
    const { db, bus } = this.o;
    const { thread_id: threadId, agent_id: agentId } = claim;
    if (outcome.kind === 'stopped' && outcome.reason === 'lost') return; // deleted, or another instance took over
    // Input that arrived after the model's last call keeps the thread queued: it runs again.
    const unanswered = outcome.kind === 'done' && (await hasUserInputAfter(db, threadId, answeredUserSequence));
    const leavesQueue = (outcome.kind === 'done' && !unanswered) || outcome.kind === 'failed' || (outcome.kind === 'stopped' && outcome.reason === 'thread');
    if (leavesQueue) await removeFromSchedule(db, bus, threadId, agentId);
    if (outcome.kind === 'paused') return this.pause(claim, outcome, writer);
    const error = outcome.kind === 'failed' ? outcome.message : '';
    // The chat says why before the thread shows stopped: whoever sees it stop finds the reason there.
    try {
      if (outcome.kind === 'failed') await writer.message('error', error);
      if (outcome.kind === 'stopped') await writer.message('warning', STOP_NOTES[outcome.reason]);
    } finally {
      await releaseClaim(db, threadId, this.id, error);
    }

    // play works one head, then waits; a failure stops the agent until someone looks.
    const stopFrom = outcome.kind === 'failed' ? 'any' : outcome.kind === 'done' && !unanswered ? 'run' : null;
    if (stopFrom && (await stopAgentAfterRun(db, agentId, stopFrom))) {
      bus.publish(TOPICS.agentChanged(agentId), { agent_id: agentId, target_run_state: 'stop' });
    }
    const next = outcome.kind === 'done' && this.running ? await claimNext(db, this.id, agentId, this.o.held?.() ?? []) : null;
    if (next) this.launch(next);
  }
}

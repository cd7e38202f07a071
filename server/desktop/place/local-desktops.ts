// The desktops of this server: started on demand by the provider config.desktop names (xvnc by default
// when the Xvnc binary exists, vnc, or none), shared by concurrent callers, put to sleep (frozen) and later
// stopped after idle times without viewers or a run, restarted after a crash, capped in number (the least
// recently used idle one makes room).
import { EventEmitter } from 'node:events';
import { loadDesktopConfig, type DesktopConfig } from '../../config/index.ts';
import type { Log } from '../../ops/log.ts';
import { Containment } from '../contain/index.ts';
import { DesktopsFull, DesktopUnavailable } from '../errors.ts';
import type { RfbDesktop } from '../rfb/desktop.ts';
import type { Desktops, DesktopStatus } from '../types.ts';
import { parseEndpoints, VncProvider } from '../start/vnc.ts';
import { XvncProvider } from '../start/xvnc.ts';
import type { HomeCheckpoints } from '../keep/home-checkpoints.ts';

export type LocalDesktopsOptions = {
  dataDir: string;
  log: Log;
  config: DesktopConfig;
  /** Run each desktop as its own user (needs root). @default whether the server runs as root */
  isolate?: boolean;
};

type Provider = { start(agentId: number): Promise<RfbDesktop> };
type Entry = { desktop?: RfbDesktop; starting?: Promise<RfbDesktop> };

const RESTART_WINDOW_MS = 60_000;
const MAX_RESTARTS = 3;

/**
 * Events: 'started' (desktop), 'stopped' (agentId), 'crashed' (agentId, error); 'storage-full' (agentId, part: 'home' | '/tmp', sizeMb);
 * 'sleeping' (agentId), 'awake' (agentId, ms asleep).
 * `onStopping` runs before a desktop stops on purpose (the last screenshot is stored there).
 */
/** How often the running desktops' homes and /tmp are looked at for having filled up. */
const STORAGE_CHECK_MS = 5000;

export class LocalDesktops extends EventEmitter implements Desktops {
  readonly kind: DesktopStatus['provider'];
  readonly reason: string | undefined;
  onStopping: ((desktop: RfbDesktop) => Promise<void>) | null = null;
  /** Asked before a crashed desktop is brought back: with several instances, only while this one holds its lease. */
  mayRestart: ((agentId: number) => Promise<boolean>) | null = null;
  private provider: Provider;
  /** The Xvnc provider, when desktops start on this machine. */
  readonly xvnc: XvncProvider | null = null;
  private entries = new Map<number, Entry>();
  /** Agents whose desktop runs use, and how many: never stopped to make room or as idle while used. */
  private inRuns = new Map<number, number>();
  private crashes = new Map<number, number[]>();
  private idleMs: number;
  private sleepMs: number;
  /** Said once: why desktops here never sleep. */
  private sleeplessSaid = false;
  private maxDesktops: number;
  private timer: NodeJS.Timeout;
  private storageTimer: NodeJS.Timeout;
  /** The desktops' parts found full at the last look ('<agentId> home'), so each filling is told once. */
  private full = new Set<string>();
  /** Desktops whose idle sleep or stop is under way (restIdle). */
  private resting = new Set<number>();
  private closing = false;
  /** The homes' checkpoints (desktop/keep): stored at every stop and sleep, restored before a start. */
  private checkpoints: HomeCheckpoints | null = null;

  constructor(private options: LocalDesktopsOptions) {
    super();
    const config = options.config;
    this.idleMs = config.idleMs;
    this.sleepMs = config.sleepMs;
    this.maxDesktops = config.max;
    const frameInterval = { watched: Math.round(1000 / config.fps), unwatched: 200 };
    const unavailable = (reason: string): Provider => ({ start: async () => { throw new DesktopUnavailable(reason); } });

    if (config.provider === 'xvnc') {
      const containment = new Containment({ dataDir: options.dataDir, log: options.log, config, isolate: options.isolate });
      const xvnc = new XvncProvider({
        dataDir: options.dataDir, log: options.log, containment, width: config.width, height: config.height,
        apps: config.apps, displayBase: config.displayBase, frameInterval, maxPixels: config.maxPixels,
      });
      if (xvnc.binary && containment.problem) {
        // Fail closed: no desktop starts that could not be contained; the reason says how to fix it.
        this.kind = 'none';
        this.reason = containment.problem;
        this.provider = unavailable(this.reason);
      } else if (xvnc.binary) {
        this.kind = 'xvnc';
        this.provider = xvnc;
        this.xvnc = xvnc;
      } else {
        this.kind = 'none';
        this.reason = 'Desktops are off: Xvnc is not installed on the server (Debian package tigervnc-standalone-server).';
        this.provider = unavailable(this.reason);
      }
    } else if (config.provider === 'vnc') {
      let provider: Provider;
      try {
        const endpoints = parseEndpoints(config.vncEndpoints, config.vncPassword ?? undefined);
        provider = new VncProvider(endpoints, frameInterval);
        this.kind = 'vnc';
        if (!endpoints.size) this.reason = 'No agent has a VNC endpoint yet (DESKTOP_VNC_ENDPOINTS is empty).';
      } catch (err) {
        this.kind = 'none';
        this.reason = `Desktops are off: ${(err as Error).message}`;
        provider = unavailable(this.reason);
      }
      this.provider = provider;
    } else {
      this.kind = 'none';
      this.reason = 'Desktops are turned off on this server (DESKTOP_PROVIDER=none).';
      this.provider = unavailable(this.reason);
    }
    if (this.reason) options.log.info(`desktops: ${this.reason}`);

    this.timer = setInterval(() => this.restIdle(), Math.min(30_000, Math.max(250, Math.min(this.sleepMs, this.idleMs) / 4)));
    this.timer.unref();
    this.storageTimer = setInterval(() => this.checkStorage(), STORAGE_CHECK_MS);
    this.storageTimer.unref();
  }

  /** Keeps the homes of desktops started here in `checkpoints` (Xvnc desktops only: others have no home here). */
  keepHomes(checkpoints: HomeCheckpoints): void {
    if (!this.xvnc) return;
    this.checkpoints = checkpoints;
    this.xvnc.restoreHome = (agentId) => checkpoints.restore(agentId);
  }

  /** Stores the agent's home (a stop or a sleep); a failure is logged, never thrown: the stop goes on. */
  private async checkpoint(agentId: number, why: string): Promise<void> {
    if (!this.checkpoints) return;
    const started = Date.now();
    try {
      const result = await this.checkpoints.checkpoint(agentId);
      if (result.stored) {
        const mb = (result.bytes / (1024 * 1024)).toFixed(1);
        this.options.log.info(`desktop ${agentId}: home checkpointed at ${why} (generation ${result.generation}, ${mb} MB, ${Date.now() - started} ms)`);
      }
    } catch (err) {
      this.options.log.error(`desktop ${agentId}: home not checkpointed at ${why}: ${(err as Error).message}`);
    }
  }

  status(): DesktopStatus {
    return { available: this.kind !== 'none', provider: this.kind, ...(this.reason ? { reason: this.reason } : {}) };
  }

  running(agentId: number): RfbDesktop | null {
    const d = this.entries.get(agentId)?.desktop;
    return d && !d.closed ? d : null;
  }

  /** Running desktops (for status pages and the idle logic). */
  list(): RfbDesktop[] {
    return [...this.entries.values()].map((e) => e.desktop).filter((d): d is RfbDesktop => !!d && !d.closed);
  }

  acquire(agentId: number): Promise<RfbDesktop> {
    if (this.closing) return Promise.reject(new DesktopUnavailable('The server is shutting down'));
    const entry = this.entries.get(agentId);
    if (entry?.desktop && !entry.desktop.closed) {
      entry.desktop.touch(); // whoever asks needs it: a sleeping desktop wakes
      return Promise.resolve(entry.desktop);
    }
    if (entry?.starting) return entry.starting;
    const starting = this.start(agentId);
    this.entries.set(agentId, { starting });
    starting.then(
      (desktop) => this.entries.set(agentId, { desktop }),
      () => this.entries.get(agentId)?.starting === starting && this.entries.delete(agentId),
    );
    return starting;
  }

  private async start(agentId: number): Promise<RfbDesktop> {
    await this.makeRoom(agentId);
    const desktop = await this.provider.start(agentId);
    desktop.on('sleep', () => {
      this.options.log.info(`desktop ${agentId}: asleep`);
      this.emit('sleeping', agentId);
    });
    desktop.on('wake', (ms: number) => {
      this.options.log.info(`desktop ${agentId}: awake after ${(ms / 1000).toFixed(1)} s asleep`);
      this.emit('awake', agentId, ms);
    });
    desktop.on('closed', (error?: Error) => {
      if (this.entries.get(agentId)?.desktop === desktop) this.entries.delete(agentId);
      if (error && !this.closing) this.onCrash(agentId, desktop, error);
    });
    this.emit('started', desktop);
    return desktop;
  }

  private onCrash(agentId: number, desktop: RfbDesktop, error: Error): void {
    this.options.log.error(`desktop ${agentId} crashed: ${error.message}`);
    this.emit('crashed', agentId, error);
    const now = Date.now();
    const recent = (this.crashes.get(agentId) ?? []).filter((t) => now - t < RESTART_WINDOW_MS);
    recent.push(now);
    this.crashes.set(agentId, recent);
    // Bring it back for the viewers (they reconnect through /agents/enter), unless it keeps crashing.
    if (desktop.viewers > 0 && recent.length <= MAX_RESTARTS) {
      setTimeout(async () => {
        if (this.closing || this.entries.has(agentId) || !((await this.mayRestart?.(agentId).catch(() => false)) ?? true)) return;
        if (this.entries.has(agentId)) return;
        this.acquire(agentId).catch((err) => this.options.log.error(`desktop ${agentId} restart failed: ${err.message}`));
      }, 250).unref();
    }
  }

  /**
   * Marks the agent's desktop as used by a run until the result is called (before it starts, too): a desktop an
   * agent is working on is not stopped to make room for another, which would pull it from under the run.
   */
  useForRun(agentId: number): () => void {
    this.inRuns.set(agentId, (this.inRuns.get(agentId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.inRuns.get(agentId)! - 1;
      if (left) this.inRuns.set(agentId, left);
      else this.inRuns.delete(agentId);
    };
  }

  private busy(desktop: RfbDesktop): boolean {
    return desktop.viewers > 0 || this.inRuns.has(desktop.agentId);
  }

  /** Stops the least recently used desktop that nobody watches and no run uses when the cap is reached. */
  private async makeRoom(agentId: number): Promise<void> {
    const others = this.list().filter((d) => d.agentId !== agentId);
    const startingCount = [...this.entries.entries()].filter(([id, e]) => id !== agentId && e.starting).length;
    if (others.length + startingCount < this.maxDesktops) return;
    const idle = others.filter((d) => !this.busy(d)).sort((a, b) => a.lastActivity - b.lastActivity)[0];
    if (!idle) throw new DesktopsFull(`Too many desktops are running (at most ${this.maxDesktops}); try again later.`);
    await this.stop(idle.agentId);
  }

  async stop(agentId: number): Promise<void> {
    const entry = this.entries.get(agentId);
    const desktop = entry?.desktop ?? (entry?.starting ? await entry.starting.catch(() => undefined) : undefined);
    if (!desktop) return;
    if (this.entries.get(agentId)?.desktop === desktop) this.entries.delete(agentId);
    try {
      await this.onStopping?.(desktop);
    } catch (err) {
      this.options.log.error(`desktop ${agentId}: before-stop hook failed: ${(err as Error).message}`);
    }
    await desktop.stop();
    // Before the lease goes ('stopped'): the instance that starts it next finds this home stored.
    await this.checkpoint(agentId, 'stop');
    this.emit('stopped', agentId);
  }

  /** Tells ('storage-full': agentId, part, sizeMb) of a home or /tmp that filled up since the last look. */
  private checkStorage(): void {
    const now = new Set<string>();
    for (const desktop of this.list()) {
      for (const { part, sizeMb } of this.xvnc?.fullParts(desktop.agentId) ?? []) {
        const key = `${desktop.agentId} ${part}`;
        now.add(key);
        if (!this.full.has(key)) this.emit('storage-full', desktop.agentId, part, sizeMb);
      }
    }
    this.full = now;
  }

  /**
   * Freezes desktops idle for sleepMs, and stops those idle for idleMs (asleep or not). Each desktop's rest goes on
   * by itself (a sleep writes the browser's cookies first, for seconds on a loaded machine) and is not begun again
   * while it does: passes come every few hundred ms, and overlapping ones flushed and froze the same desktop at once.
   */
  private restIdle(): void {
    const now = Date.now();
    for (const desktop of this.list()) {
      if (this.busy(desktop) || this.resting.has(desktop.agentId)) continue;
      const idle = now - desktop.lastActivity;
      const rest = idle > this.idleMs ? () => this.stopIdle(desktop.agentId)
        : idle > this.sleepMs && !desktop.asleep ? () => this.sleepIdle(desktop, now) : null;
      if (!rest) continue;
      this.resting.add(desktop.agentId);
      void rest().finally(() => this.resting.delete(desktop.agentId));
    }
  }

  private async stopIdle(agentId: number): Promise<void> {
    this.options.log.info(`desktop ${agentId}: idle, stopping`);
    await this.stop(agentId).catch((err) => this.options.log.error(`desktop ${agentId}: stop failed: ${err.message}`));
  }

  private async sleepIdle(desktop: RfbDesktop, now: number): Promise<void> {
    if (!desktop.canSleep) return this.sayWhySleepless();
    // Frozen, its programs write nothing: the home as it is now is what a failover restores.
    if (await desktop.sleep()) return void (await this.checkpoint(desktop.agentId, 'sleep'));
    // (Not frozen because it was used while its browser's cookies were written: no failure.)
    if (desktop.lastActivity <= now && !desktop.closed) this.options.log.error(`desktop ${desktop.agentId}: could not freeze it; it stays awake`);
  }

  private sayWhySleepless(): void {
    if (this.sleeplessSaid) return;
    this.sleeplessSaid = true;
    const why = this.kind !== 'xvnc' ? 'they are not started here'
      : this.options.config.sandbox === 'off' ? 'DESKTOP_SANDBOX=off gives them no control group'
      : 'the cgroup freezer is not available (cgroup v2 with cgroup.freeze, or the v1 freezer controller, writable by the server)';
    this.options.log.info(`desktops: idle desktops stay awake until stopped: ${why}`);
  }

  async remove(agentId: number): Promise<void> {
    await this.stop(agentId);
    if (this.xvnc) await this.xvnc.removeHome(agentId);
    await this.checkpoints?.forget(agentId);
  }

  async putFile(agentId: number, sourcePath: string, name: string): Promise<string | null> {
    this.running(agentId)?.touch(); // a file for the desktop wakes it
    if (this.xvnc) return this.xvnc.putFile(agentId, sourcePath, name);
    return null; // remote VNC desktops have no file transfer
  }

  async stopAll(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    clearInterval(this.storageTimer);
    this.emit('closing');
    const ids = [...this.entries.keys()];
    await Promise.all(ids.map((id) => this.stop(id).catch(() => {})));
    await this.xvnc?.unmountHomes();
  }
}

/** Desktops of their own, for tests and benchmarks: the defaults, with `overrides` and an environment's settings. */
export function createDesktops(options: Omit<LocalDesktopsOptions, 'config'> & { config?: Partial<DesktopConfig>; env?: NodeJS.ProcessEnv }) {
  const { config, env, ...rest } = options;
  return new LocalDesktops({ ...rest, config: { ...loadDesktopConfig(env), ...config } });
}

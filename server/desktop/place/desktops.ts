// Chooses the desktop provider (DESKTOP_PROVIDER: xvnc by default when the Xvnc binary exists, vnc, or
// none) and runs the agents' desktops: started on demand, shared by concurrent callers, stopped after an
// idle time without viewers, restarted after a crash, capped in number (the least recently used idle one
// makes room). Environment: DESKTOP_IDLE_MINUTES (10), DESKTOP_MAX (8), DESKTOP_APPS ("terminal,browser"),
// DESKTOP_GEOMETRY ("1280x800"), DESKTOP_FPS (15), DESKTOP_VNC_ENDPOINTS, DESKTOP_VNC_PASSWORD.
import { EventEmitter } from 'node:events';
import { rm } from 'node:fs/promises';
import type { Log } from '../../ops/log.ts';
import { DesktopUnavailable, NoneProvider } from '../errors.ts';
import type { RfbDesktop } from '../rfb/desktop.ts';
import type { DesktopManager, DesktopStatus } from '../types.ts';
import { parseEndpoints, VncProvider } from '../start/vnc.ts';
import { XvncProvider, type DesktopApp } from '../start/xvnc.ts';

export type ManagerOptions = {
  dataDir: string;
  log: Log;
  /** 'xvnc' | 'vnc' | 'none' (config.desktopProvider). @default 'xvnc' */
  provider?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Stop a desktop nobody watched or used for this long. @default DESKTOP_IDLE_MINUTES or 10 min */
  idleMs?: number;
  /** @default DESKTOP_MAX or 8 */
  maxDesktops?: number;
  apps?: DesktopApp[];
  displayBase?: number;
};

type Provider = { start(agentId: number): Promise<RfbDesktop> };
type Entry = { desktop?: RfbDesktop; starting?: Promise<RfbDesktop> };

const RESTART_WINDOW_MS = 60_000;
const MAX_RESTARTS = 3;

/**
 * Events: 'started' (desktop), 'stopped' (agentId), 'crashed' (agentId, error).
 * `onStopping` runs before a desktop stops on purpose (the last screenshot is stored there).
 */
export class Desktops extends EventEmitter implements DesktopManager {
  readonly kind: DesktopStatus['provider'];
  readonly reason: string | undefined;
  onStopping: ((desktop: RfbDesktop) => Promise<void>) | null = null;
  private provider: Provider;
  private xvnc: XvncProvider | null = null;
  private entries = new Map<number, Entry>();
  private crashes = new Map<number, number[]>();
  private idleMs: number;
  private maxDesktops: number;
  private timer: NodeJS.Timeout;
  private closing = false;

  constructor(private options: ManagerOptions) {
    super();
    const env = options.env ?? process.env;
    this.idleMs = options.idleMs ?? minutes(env.DESKTOP_IDLE_MINUTES, 10);
    this.maxDesktops = options.maxDesktops ?? positiveInt(env.DESKTOP_MAX, 8);
    const fps = positiveInt(env.DESKTOP_FPS, 15);
    const frameInterval = { watched: Math.round(1000 / fps), unwatched: 200 };
    const wanted = (options.provider ?? env.DESKTOP_PROVIDER ?? 'xvnc').toLowerCase();

    if (wanted === 'xvnc') {
      const [width, height] = geometry(env.DESKTOP_GEOMETRY);
      const apps = options.apps ?? (env.DESKTOP_APPS ? (env.DESKTOP_APPS.split(',').map((s) => s.trim()).filter((a) => a === 'terminal' || a === 'browser') as DesktopApp[]) : undefined);
      const xvnc = new XvncProvider({ dataDir: options.dataDir, log: options.log, width, height, apps, displayBase: options.displayBase ?? positiveInt(env.DESKTOP_DISPLAY_BASE, 20), frameInterval });
      if (xvnc.binary) {
        this.kind = 'xvnc';
        this.provider = xvnc;
        this.xvnc = xvnc;
      } else {
        this.kind = 'none';
        this.reason = 'Desktops are off: Xvnc is not installed on the server (Debian package tigervnc-standalone-server).';
        this.provider = new NoneProvider(this.reason);
      }
    } else if (wanted === 'vnc') {
      let provider: Provider;
      try {
        const endpoints = parseEndpoints(env.DESKTOP_VNC_ENDPOINTS ?? '', env.DESKTOP_VNC_PASSWORD || undefined);
        provider = new VncProvider(endpoints, frameInterval);
        this.kind = 'vnc';
        if (!endpoints.size) this.reason = 'No agent has a VNC endpoint yet (DESKTOP_VNC_ENDPOINTS is empty).';
      } catch (err) {
        this.kind = 'none';
        this.reason = `Desktops are off: ${(err as Error).message}`;
        provider = new NoneProvider(this.reason);
      }
      this.provider = provider;
    } else {
      this.kind = 'none';
      this.reason = wanted === 'none' ? 'Desktops are turned off on this server (DESKTOP_PROVIDER=none).' : `Desktops are off: unknown DESKTOP_PROVIDER "${wanted}".`;
      this.provider = new NoneProvider(this.reason);
    }
    if (this.reason) options.log.info(`desktops: ${this.reason}`);

    this.timer = setInterval(() => void this.stopIdle(), Math.min(30_000, Math.max(1000, this.idleMs / 4)));
    this.timer.unref();
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
    if (entry?.desktop && !entry.desktop.closed) return Promise.resolve(entry.desktop);
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
      setTimeout(() => {
        if (!this.closing && !this.entries.has(agentId)) this.acquire(agentId).catch((err) => this.options.log.error(`desktop ${agentId} restart failed: ${err.message}`));
      }, 250).unref();
    }
  }

  /** Stops the least recently used desktop without viewers when the cap is reached. */
  private async makeRoom(agentId: number): Promise<void> {
    const others = this.list().filter((d) => d.agentId !== agentId);
    const startingCount = [...this.entries.entries()].filter(([id, e]) => id !== agentId && e.starting).length;
    if (others.length + startingCount < this.maxDesktops) return;
    const idle = others.filter((d) => d.viewers === 0).sort((a, b) => a.lastActivity - b.lastActivity)[0];
    if (!idle) throw new DesktopUnavailable(`Too many desktops are running (at most ${this.maxDesktops}); try again later.`);
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
    this.emit('stopped', agentId);
  }

  private async stopIdle(): Promise<void> {
    const now = Date.now();
    for (const desktop of this.list()) {
      if (desktop.viewers === 0 && now - desktop.lastActivity > this.idleMs) {
        this.options.log.info(`desktop ${desktop.agentId}: idle, stopping`);
        await this.stop(desktop.agentId).catch((err) => this.options.log.error(`desktop ${desktop.agentId}: stop failed: ${err.message}`));
      }
    }
  }

  async remove(agentId: number): Promise<void> {
    await this.stop(agentId);
    if (this.xvnc) await rm(this.xvnc.homeOf(agentId), { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }); // its apps may still be writing as they exit
  }

  async putFile(agentId: number, sourcePath: string, name: string): Promise<string | null> {
    if (this.xvnc) return this.xvnc.putFile(agentId, sourcePath, name);
    return null; // remote VNC desktops have no file transfer
  }

  async stopAll(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    this.emit('closing');
    const ids = [...this.entries.keys()];
    await Promise.all(ids.map((id) => this.stop(id).catch(() => {})));
  }
}

export function createDesktopManager(options: ManagerOptions): Desktops {
  return new Desktops(options);
}

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? n : fallback;
}

function minutes(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return (value && Number.isFinite(n) && n > 0 ? n : fallback) * 60_000;
}

function geometry(value: string | undefined): [number, number] {
  const m = /^(\d{3,4})x(\d{3,4})$/.exec(value ?? '');
  return m ? [Number(m[1]), Number(m[2])] : [1280, 800];
}

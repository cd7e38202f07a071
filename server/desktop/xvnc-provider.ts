// One TigerVNC Xvnc per agent on this machine: RFB only on a Unix socket (mode 0600, no TCP at all, so
// security type None is safe), a window manager that is up before any app starts (apps started with the
// WM stay invisible), a terminal and Debian's Chromium, HOME = $DATA_DIR/desktops/agent-<id>.
// Also: stale X locks after a crash are removed, and an Xvnc left over by a killed server is ended.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Log } from '../services.ts';
import { DesktopHomes, type Account } from './desktop-homes.ts';
import { findBinary, shortSocketPath } from './host.ts';
import { RfbClient } from './rfb-client.ts';
import { RfbDesktop } from './rfb-desktop.ts';
import { DesktopSound } from './sound.ts';

export type DesktopApp = 'terminal' | 'browser';

export type XvncOptions = {
  dataDir: string;
  log: Log;
  /** @default 1280 */
  width?: number;
  /** @default 800 */
  height?: number;
  /** What starts on the desktop. @default ['terminal', 'browser'] */
  apps?: DesktopApp[];
  /** First X display number tried. @default 20 */
  displayBase?: number;
  /** Frame caps in ms (watched / unwatched). */
  frameInterval?: { watched: number; unwatched: number };
  /** Put the pointer over the terminal after start, so that it has the focus. @default true */
  pointerToTerminal?: boolean;
  /** A sound server per desktop, streamed to viewers. @default whether PulseAudio is installed */
  sound?: boolean;
  /** Run each desktop as its own user (needs root). @default whether the server runs as root */
  isolate?: boolean;
};

// The desktop's processes stay in the server's process group, so that whoever kills the group (Ctrl+C in
// a terminal, Playwright's web server teardown) ends them too; a plain exit of this process ends them here.
const LIVE = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of LIVE) signal(child, 'SIGTERM');
});

const X_LOCK = (n: number) => `/tmp/.X${n}-lock`;
const X_SOCKET = (n: number) => `/tmp/.X11-unix/X${n}`;
const DISPLAY_RANGE = 1000;

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (dead, not yet reaped: containers whose init does not reap) still answers signal 0.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}

/**
 * Whether display n is free. A lock whose process is gone (Xvnc killed with SIGKILL leaves
 * /tmp/.X<n>-lock and /tmp/.X11-unix/X<n> behind, and the next start fails with "Server is already active
 * for display n") is removed together with the socket.
 */
export function claimDisplay(n: number): boolean {
  const lock = X_LOCK(n);
  if (existsSync(lock)) {
    let pid = NaN;
    try {
      pid = Number(readFileSync(lock, 'latin1').trim());
    } catch {}
    if (alive(pid)) return false;
    rmSync(lock, { force: true });
    rmSync(X_SOCKET(n), { force: true });
    return true;
  }
  // A socket without a lock belongs to a server started with -nolock: leave it alone.
  return !existsSync(X_SOCKET(n));
}

export class XvncProvider {
  readonly binary: string | null = findBinary('Xvnc');
  private reserved = new Set<number>();
  private lastDisplay = new Map<number, number>();
  private width: number;
  private height: number;
  private apps: DesktopApp[];
  private base: number;

  private homes: DesktopHomes;

  constructor(private options: XvncOptions) {
    this.homes = new DesktopHomes(options.dataDir, options.log, options.isolate);
    this.width = options.width ?? 1280;
    this.height = options.height ?? 800;
    this.apps = options.apps ?? ['terminal', 'browser'];
    this.base = options.displayBase ?? 20;
  }

  homeOf(agentId: number): string {
    return this.homes.homeOf(agentId);
  }

  /** Copies a file onto the agent's ~/Desktop (running or not), never over an existing file. */
  putFile(agentId: number, sourcePath: string, name: string): Promise<string> {
    return this.homes.putFile(agentId, sourcePath, name);
  }

  async start(agentId: number): Promise<RfbDesktop> {
    if (!this.binary) throw new Error('Xvnc is not installed');
    const home = await this.homes.prepare(agentId, ['Desktop', '.run']);
    const user = this.homes.account(agentId) ?? {};
    this.endLeftover(home, agentId);
    const sock = socketPath(home);
    rmSync(sock, { force: true });

    const { xvnc, display } = await this.launchXvnc(agentId, home, sock, user);
    const children: ChildProcess[] = [xvnc];
    let sound: DesktopSound | null = null;
    const env: NodeJS.ProcessEnv = { ...desktopEnv(agentId, home), DISPLAY: `:${display}` };
    let stopping: Promise<void> | null = null;
    const stopAll = () => (stopping ??= (async () => {
      sound?.close();
      for (const child of children.slice(1)) signal(child, 'SIGTERM');
      await stopProcess(xvnc);
      for (const child of children) LIVE.delete(child);
      this.reserved.delete(display);
      rmSync(sock, { force: true });
      // SIGTERM lets Xvnc remove its lock; after a SIGKILL the files stay and are cleaned here.
      claimDisplay(display);
    })());
    try {
      if (this.options.sound ?? DesktopSound.installed()) {
        sound = await DesktopSound.start({ home, runtime: join(home, '.run'), env: desktopEnv(agentId, home), user, log: this.options.log });
        if (sound) {
          children.push(sound.server);
          Object.assign(env, sound.env);
        }
      }
      const wm = await this.startWindowManager(env, home, user);
      if (wm) children.push(wm);
      for (const app of this.apps) {
        const child = this.startApp(app, env, home, user);
        if (child) children.push(child);
      }
      for (const child of children) LIVE.add(child);
      const rfb = await RfbClient.connect({ path: sock }, { timeout: 5000 });
      const desktop = new RfbDesktop(agentId, rfb, {
        putFile: (src, name) => this.putFile(agentId, src, name),
        stop: stopAll,
        frameInterval: this.options.frameInterval,
        sound,
      });
      // The pointer starts over the terminal: evilwm's focus follows it, so typing goes there first.
      if (this.apps.includes('terminal') && this.options.pointerToTerminal !== false) {
        desktop.pointer(Math.floor(this.width / 4), Math.floor(this.height / 2), 0);
        if (this.apps.includes('browser')) void this.refocusTerminal(desktop, env);
      }
      xvnc.once('exit', (code, signal) => {
        if (!desktop.closed) this.options.log.error(`desktop ${agentId}: Xvnc :${display} exited (${signal ?? code})`);
        // The RFB socket closes too, so the desktop reports 'closed'; make sure the rest goes as well.
        void stopAll();
      });
      return desktop;
    } catch (err) {
      await stopAll();
      throw err;
    }
  }

  private async launchXvnc(agentId: number, home: string, sock: string, user: Partial<Account>): Promise<{ xvnc: ChildProcess; display: number }> {
    let lastError = '';
    // Where X servers put their sockets; made here because one that is not root cannot make it right.
    if (!existsSync('/tmp/.X11-unix')) {
      mkdirSync('/tmp/.X11-unix', { mode: 0o1777 });
      chmodSync('/tmp/.X11-unix', 0o1777);
    }
    for (let attempt = 0; attempt < 20; attempt++) {
      const display = this.pickDisplay(agentId);
      // A cookie, so that other local users cannot open the X display (its socket is world-writable).
      await this.homes.writeFile(agentId, '.Xauthority', xauthority(display));
      const args = [
        `:${display}`,
        '-geometry', `${this.width}x${this.height}`, '-depth', '24',
        '-rfbport', '-1', '-rfbunixpath', sock, '-rfbunixmode', '0600',
        '-SecurityTypes', 'None', '-localhost', '-nolisten', 'tcp',
        // Without -AlwaysShared a viewer connecting non-shared (a debugging vncviewer) drops the gateway;
        // without -s 0 the X screensaver blanks a watched but idle desktop after 600 s.
        '-AlwaysShared', '-s', '0',
        '-desktop', `agent-${agentId}`,
        '-auth', join(home, '.Xauthority'),
      ];
      const xvnc = spawn(this.binary!, args, { cwd: home, env: desktopEnv(agentId, home), stdio: ['ignore', 'ignore', 'pipe'], ...user });
      let stderr = '';
      xvnc.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
      const ready = await waitFor(() => existsSync(sock) && existsSync(X_SOCKET(display)), xvnc, 10_000);
      if (ready) {
        this.lastDisplay.set(agentId, display);
        await this.homes.writeFile(agentId, '.xvnc.pid', `${xvnc.pid}\n${display}\n`);
        return { xvnc, display };
      }
      await stopProcess(xvnc);
      this.reserved.delete(display);
      lastError = stderr.trim().split('\n').slice(-3).join(' | ') || 'Xvnc did not start';
      if (!/already active|server is already|cannot establish|EADDRINUSE|Address already in use/i.test(stderr)) break;
    }
    throw new Error(`Xvnc failed to start: ${lastError}`);
  }

  /** The agent's previous display first (its files are known to be ours), then the first free one. */
  private pickDisplay(agentId: number): number {
    const previous = this.lastDisplay.get(agentId);
    const candidates = previous !== undefined ? [previous] : [];
    for (let n = this.base; n < this.base + DISPLAY_RANGE; n++) candidates.push(n);
    for (const n of candidates) {
      if (this.reserved.has(n)) continue;
      if (!claimDisplay(n)) continue;
      this.reserved.add(n);
      return n;
    }
    throw new Error('No free X display number');
  }

  /** An Xvnc of this agent that a previous (killed) server process left running. */
  private endLeftover(home: string, agentId: number): void {
    const file = join(home, '.xvnc.pid');
    if (!existsSync(file)) return;
    const [pidText] = readFileSync(file, 'latin1').split('\n');
    const pid = Number(pidText);
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (cmdline.includes('Xvnc') && cmdline.includes(`agent-${agentId}`) && cmdline.includes(socketPath(home))) {
        this.options.log.info(`desktop ${agentId}: ending leftover Xvnc ${pid}`);
        process.kill(pid, 'SIGKILL');
      }
    } catch {}
    try {
      unlinkSync(file);
    } catch {}
  }

  /**
   * Starts the first window manager found and waits until it owns the screen: an xterm mapped at the same
   * moment as the WM stayed invisible in 4 of 4 trials. Readiness is the WM's _NET_SUPPORTING_WM_CHECK.
   */
  private async startWindowManager(env: NodeJS.ProcessEnv, home: string, user: Partial<Account>): Promise<ChildProcess | null> {
    const half = Math.floor(this.width / 2);
    const wm = [
      // evilwm places windows without a user-given position under the pointer; pin Chromium's.
      { bin: 'evilwm', args: ['-fn', 'fixed', '-snap', '8', '-app', 'chromium/Chromium', '-g', `${this.width - half - 2}x${this.height - 2}+${half}+0`] },
      { bin: 'openbox', args: [] },
    ].find((w) => findBinary(w.bin));
    if (!wm) {
      this.options.log.info('desktop: no window manager found (install evilwm); windows get no focus handling');
      return null;
    }
    const child = spawn(wm.bin, wm.args, { env, cwd: home, stdio: 'ignore', ...user });
    child.on('error', () => {});
    const xprop = findBinary('xprop');
    if (!xprop) {
      await sleep(500);
      return child;
    }
    const up = await waitForAsync(() => wmReady(xprop, env), child, 5000);
    if (!up) this.options.log.error(`desktop: ${wm.bin} did not announce itself within 5 s`);
    return child;
  }

  /**
   * Chromium maps its window a second or two after the terminal and takes the focus. Once it is there,
   * and if nobody has used the desktop yet, the pointer leaves the terminal and comes back, which makes
   * evilwm focus the terminal again.
   */
  private async refocusTerminal(desktop: RfbDesktop, env: NodeJS.ProcessEnv): Promise<void> {
    const xprop = findBinary('xprop');
    if (!xprop) return;
    const untouched = desktop.lastActivity;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !desktop.closed) {
      await sleep(250);
      if ((await clientCount(xprop, env)) >= 2) {
        await sleep(300);
        if (desktop.closed || desktop.lastActivity !== untouched) return;
        const y = Math.floor(this.height / 2);
        desktop.pointer(Math.floor((this.width * 3) / 4), y, 0);
        await sleep(100);
        desktop.pointer(Math.floor(this.width / 4), y, 0);
        desktop.lastActivity = untouched; // this was not a user
        return;
      }
    }
  }

  private startApp(app: DesktopApp, env: NodeJS.ProcessEnv, home: string, user: Partial<Account>): ChildProcess | null {
    if (app === 'terminal') {
      if (!findBinary('xterm')) return null;
      // DejaVu Sans Mono at 10 pt and 96 dpi: 8 x 17 px cells.
      const half = Math.floor(this.width / 2);
      const cols = Math.max(40, Math.floor((half - 12) / 8));
      const rows = Math.max(10, Math.floor((this.height - 12) / 17));
      const child = spawn('xterm', ['-fa', 'Monospace', '-fs', '10', '-title', 'Terminal', '-geometry', `${cols}x${rows}+4+4`], {
        env, cwd: home, stdio: 'ignore', ...user,
      });
      child.on('error', () => {});
      return child;
    }
    const bin = ['chromium', 'chromium-browser', 'google-chrome'].find((b) => findBinary(b));
    if (!bin) return null;
    // No --user-data-dir: the profile lands in $XDG_CONFIG_HOME/chromium anyway, and a non-default one
    // would change the window's instance name that evilwm's placement rule matches.
    const x = Math.floor(this.width / 2);
    const args = [
      '--no-first-run', '--no-default-browser-check', '--password-store=basic', '--disable-gpu',
      '--disable-dev-shm-usage', '--disable-component-update',
      `--window-position=${x},0`, `--window-size=${this.width - x},${this.height}`,
      'about:blank',
    ];
    // Chromium refuses to run as root without this; the desktop runs as the server's user.
    // (--test-type hides the infobar warning about that flag.)
    if (process.getuid?.() === 0) args.unshift('--no-sandbox', '--test-type');
    const child = spawn(bin, args, { env, cwd: home, stdio: 'ignore', ...user });
    child.on('error', () => {});
    return child;
  }
}

/**
 * What a desktop's processes start with: nothing of the server's environment, which holds its secrets
 * (model API keys, DATABASE_URL, ADMIN_PASSWORD), only what programs on a desktop expect.
 */
export function desktopEnv(agentId: number, home: string): NodeJS.ProcessEnv {
  const lang = process.env.LANG && /utf-?8/i.test(process.env.LANG) ? process.env.LANG : 'C.UTF-8';
  return {
    PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    USER: `agent-${agentId}`,
    LOGNAME: `agent-${agentId}`,
    SHELL: '/bin/bash',
    LANG: lang,
    ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
    XAUTHORITY: join(home, '.Xauthority'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, '.run'),
  };
}

/** An Xauthority file with one MIT-MAGIC-COOKIE-1 for display n, valid from any host name (FamilyWild). */
function xauthority(display: number): Buffer {
  const field = (b: Buffer) => {
    const len = Buffer.alloc(2);
    len.writeUInt16BE(b.length);
    return Buffer.concat([len, b]);
  };
  const family = Buffer.alloc(2);
  family.writeUInt16BE(0xffff);
  return Buffer.concat([family, field(Buffer.alloc(0)), field(Buffer.from(String(display))), field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(randomBytes(16))]);
}

/** The RFB socket, in the agent's home when the path fits. */
const socketPath = (home: string) => shortSocketPath(home, '.rfb.sock');

function wmReady(xprop: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(xprop, ['-root', '_NET_SUPPORTING_WM_CHECK'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('error', () => resolve(false));
    child.on('close', () => resolve(/window id/i.test(out)));
  });
}

/** Windows the window manager manages (_NET_CLIENT_LIST). */
function clientCount(xprop: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(xprop, ['-root', '_NET_CLIENT_LIST'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('error', () => resolve(0));
    child.on('close', () => resolve((out.match(/0x[0-9a-f]+/gi) ?? []).length));
  });
}

function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  try {
    child.kill(sig);
  } catch {}
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signal(child, 'SIGTERM');
  const timer = setTimeout(() => signal(child, 'SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(test: () => boolean, child: ChildProcess, ms: number): Promise<boolean> {
  return waitForAsync(async () => test(), child, ms);
}

async function waitForAsync(test: () => Promise<boolean>, child: ChildProcess, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if (await test()) return true;
    await sleep(25);
  }
  return false;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

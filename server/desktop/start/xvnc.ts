// One TigerVNC Xvnc per agent on this machine: RFB only on a Unix socket (mode 0600, no TCP at all, so
// security type None is safe), the desktop's apps (apps.ts) and its sound, every program started in the
// desktop's Sandbox (contain/). Its stop ends every process of the desktop. An Xvnc left over by a killed
// server is ended at the next start; the server's own pid files live in $DATA_DIR/run, out of the agent's
// reach.
import { spawner, type Child } from '../../system/spawner/index.ts';
import { existsSync, mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Log } from '../../ops/log.ts';
import type { Containment, Sandbox } from '../contain/index.ts';
import { JAIL_DISPLAY } from '../contain/sandbox.ts';
import { WindowLookup } from './windows.ts';
import { xauthorityCookie } from './x11-client.ts';
import { DevtoolsPipe } from './devtools-pipe.ts';
import { focusedField } from './browser-focus.ts';
import { CookieFlush } from './cookie-flush.ts';
import { startDesktopApps, type DesktopApp } from './apps.ts';
import { RfbClient } from '../rfb/client.ts';
import { RfbDesktop } from '../rfb/desktop.ts';
import { DesktopSound } from './sound.ts';
import { readUntrustedFile } from '../contain/untrusted-file.ts';
import { readProc } from '../../system/processes.ts';
import { claimDisplay, ensureSocketDir, xauthority, X_SOCKET } from './displays.ts';
import { until } from './until.ts';
import { endProgram, signal, stopProcess } from './end-program.ts';
import { DesktopUnavailable } from '../errors.ts';

export type { DesktopApp };

export type XvncOptions = {
  dataDir: string;
  log: Log;
  /** Who the desktops run as, and in what. */
  containment: Containment;
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
  /** The largest screen taken from the desktop (DESKTOP_MAX_PIXELS); a larger one ends it. */
  maxPixels?: number;
};

// The desktop's processes run in process groups of their own (Sandbox.spawn), so a signal to the server's group
// reaches the server alone, which stops its desktops in order; an exit without that stop ends them here.
const LIVE = new Set<Child>();
process.once('exit', () => {
  for (const child of LIVE) signal(child, 'SIGTERM');
});

const DISPLAY_RANGE = 1000;

/** A started Xvnc: its display, and the sockets of RFB and of X where the server connects, with the display's cookie. */
type Launched = { xvnc: Child; display: number; hostSock: string; xSock: string; cookie: Buffer };

/** Where the server notes the pid and display of an agent's Xvnc (its own directory, not the agent's home). */
export const xvncPidFile = (dataDir: string, agentId: number) => join(dataDir, 'run', `xvnc-agent-${agentId}.pid`);

export class XvncProvider {
  readonly binary: string | null;
  private reserved = new Set<number>();
  private lastDisplay = new Map<number, number>();
  /** Stops in progress: a new start of the same agent waits, since a stop ends every process of its uid. */
  private stopping = new Map<number, Promise<void>>();
  private width: number;
  private height: number;
  private apps: DesktopApp[];
  private base: number;
  readonly containment: Containment;
  /** Puts back the newest checkpoint of the home when this machine's copy is older (desktop/keep), before any program starts. */
  restoreHome: ((agentId: number) => Promise<unknown>) | null = null;
  /** The sandboxes of the running desktops (tests reach a desktop's X display through them). */
  private sandboxes = new Map<number, Sandbox>();
  /** The DevTools pipe of the browser each running desktop's server started. */
  private browsers = new Map<number, DevtoolsPipe>();

  constructor(private options: XvncOptions) {
    this.containment = options.containment;
    this.binary = this.containment.which('Xvnc');
    this.width = options.width ?? 1280;
    this.height = options.height ?? 800;
    this.apps = options.apps ?? ['terminal', 'browser'];
    this.base = options.displayBase ?? 20;
    if (this.binary) this.containment.prepare(); // the first desktop's network, before anyone asks
  }

  homeOf(agentId: number): string {
    return this.containment.homeOf(agentId);
  }

  /** The running desktop's home and /tmp that are full (less than 1 MB free), with their sizes. */
  fullParts(agentId: number): { part: 'home' | '/tmp'; sizeMb: number }[] {
    const sandbox = this.sandboxes.get(agentId);
    if (!sandbox?.jail?.tmp) return [];
    const parts: { part: 'home' | '/tmp'; sizeMb: number }[] = [];
    for (const [part, path] of [['home', sandbox.home], ['/tmp', sandbox.jail.tmp]] as const) {
      try {
        const fs = statfsSync(path);
        if (fs.bavail * fs.bsize < 1024 * 1024) parts.push({ part, sizeMb: Math.round((fs.blocks * fs.bsize) / (1024 * 1024)) });
      } catch {} // gone meanwhile
    }
    return parts;
  }

  /** Unmounts the homes' images this server mounted and removes what it made ahead (it stops). */
  async unmountHomes(): Promise<void> {
    this.containment.close();
    await this.containment.homes.images?.unmountAll();
  }

  /** Removes the agent's home (and its image) for good; its desktop is stopped. */
  removeHome(agentId: number): Promise<void> {
    return this.containment.homes.remove(agentId);
  }

  /** Copies a file onto the agent's ~/Desktop (running or not), never over an existing file. */
  putFile(agentId: number, sourcePath: string, name: string): Promise<string> {
    return this.containment.putFile(agentId, sourcePath, name);
  }

  /** The DevTools pipe of the browser the server started on the agent's running desktop, or null (not up, or gone). */
  browserOf(agentId: number): DevtoolsPipe | null {
    const pipe = this.browsers.get(agentId);
    return pipe && !pipe.closed ? pipe : null;
  }

  /** The sandbox of the agent's running desktop, with DISPLAY in its environment. */
  sandboxOf(agentId: number): Sandbox | null {
    return this.sandboxes.get(agentId) ?? null;
  }

  /**
   * Starts the agent's desktop and resolves once its screen can be shown (Xvnc up, RFB connected); the window
   * manager, the sound and the apps follow, and the desktop's `ready` resolves once they are up (issue 48).
   */
  async start(agentId: number): Promise<RfbDesktop> {
    if (!this.binary) throw new Error('Xvnc is not installed');
    const deaths = spawner().deaths;
    await this.stopping.get(agentId);
    // What a killed server left ends while the sandbox is made: neither needs the other, and no program of the agent's runs yet.
    const [opened, ended] = await Promise.allSettled([this.containment.open(agentId), this.endLeftover(this.containment.sandbox(agentId))]);
    if (opened.status === 'rejected') throw opened.reason;
    const sandbox = opened.value;
    if (ended.status === 'rejected') {
      await sandbox.close();
      throw ended.reason;
    }
    // Now that nothing of the agent's runs here: its home as it was last stored, when that is newer than this copy.
    try {
      await this.restoreHome?.(agentId);
    } catch (err) {
      await sandbox.close();
      throw new DesktopUnavailable(`The desktop's home could not be restored: ${(err as Error).message}`);
    }
    // The RFB socket as the desktop makes it; where the server connects to it comes once it is made.
    const sock = sandbox.socket('.rfb.sock');
    rmSync(sandbox.hostPath(sock), { force: true });

    let launched: Launched;
    try {
      launched = await this.launchXvnc(sandbox, sock);
    } catch (err) {
      await sandbox.close();
      throw err;
    }
    const { xvnc, display, hostSock, xSock, cookie } = launched;
    const children: Child[] = [xvnc];
    LIVE.add(xvnc);
    let sound: DesktopSound | null = null;
    let desktop: RfbDesktop | null = null;
    const env: NodeJS.ProcessEnv = { DISPLAY: `:${display}` };
    const windows = new WindowLookup({ path: xSock, cookie });
    let devtools: DevtoolsPipe | null = null;
    const cookies = new CookieFlush(sandbox.home);
    let stopped: Promise<void> | null = null;
    // Aborted by the stop: apps still starting start nothing more.
    const starting = new AbortController();
    const stopAll = () => (stopped ??= this.track(agentId, (async () => {
      starting.abort();
      sound?.close();
      windows.close();
      // The programs end while their display is still there, as at a logout; then the display. The DevTools pipe
      // closes after the browser ended: closing it first would end the browser as a crash does, not as a logout.
      // The browser is asked over DevTools first: closed so, it writes its cookies and profile out (issue 50: the home
      // is checkpointed next); a SIGTERM alone left the cookies of its last 30 s unwritten.
      if (devtools && !devtools.closed) await closeBrowser(devtools);
      await Promise.all(children.slice(1).map((child) => endProgram(sandbox, child)));
      devtools?.close();
      await stopProcess(xvnc);
      for (const child of children) LIVE.delete(child);
      // Everything else of the desktop too: background jobs would otherwise watch later file drops.
      await sandbox.close();
      if (this.sandboxes.get(agentId) === sandbox) this.sandboxes.delete(agentId);
      if (this.browsers.get(agentId) === devtools) this.browsers.delete(agentId);
      rmSync(xvncPidFile(this.options.dataDir, agentId), { force: true });
      if (sandbox.jail) return; // its display lived in its own /tmp, gone with it
      this.reserved.delete(display);
      rmSync(hostSock, { force: true });
      // SIGTERM lets Xvnc remove its lock; after a SIGKILL the files stay and are cleaned here.
      claimDisplay(display);
    })()));
    xvnc.once('exit', (code, sig) => {
      if (desktop && !desktop.closed) this.options.log.error(`desktop ${agentId}: Xvnc :${display} exited (${sig ?? code})`);
      // The RFB socket closes too, so the desktop reports 'closed'; make sure the rest goes as well.
      void stopAll();
    });
    const adopt = (child: Child) => (children.push(child), LIVE.add(child));
    try {
      windows.open();
      const rfb = await RfbClient.connectWhenListening(hostSock, { timeout: 5000, maxPixels: this.options.maxPixels });
      // Its socket is known before it is up, so viewers may listen at once; the apps wait for it.
      if (this.options.sound ?? DesktopSound.installed(sandbox)) {
        sound = DesktopSound.start({ sandbox, log: this.options.log });
        adopt(sound.server);
        Object.assign(env, sound.env);
      }
      const apps = startDesktopApps(this.apps, {
        sandbox, env, width: this.width, height: this.height, log: this.options.log, signal: starting.signal, onProcess: adopt, before: sound?.ready,
        onBrowser: (toBrowser, fromBrowser) => {
          devtools = new DevtoolsPipe(toBrowser, fromBrowser);
          this.browsers.set(agentId, devtools);
        },
      }).catch((err) => this.options.log.error(`desktop ${agentId}: its apps did not start: ${(err as Error).message}`));
      this.sandboxes.set(agentId, sandbox);
      desktop = new RfbDesktop(agentId, rfb, {
        putFile: (src, name) => this.putFile(agentId, src, name),
        stop: stopAll,
        frameInterval: this.options.frameInterval,
        sound,
        windowAt: (x, y) => windows.at(x, y),
        // The browser the server started; until it is there, and once it is gone (closed, or replaced by one started on
        // the desktop), no page of it has the focus.
        focusedField: async () => (devtools && !devtools.closed ? focusedField(devtools) : null),
        focusedWindow: () => windows.focused(),
        target: { path: hostSock },
        freezer: sandbox.jail?.limits.freezer ?? null,
        // The browser's cookies on disk before the freeze: Chromium writes them up to 30 s late (cookie-flush.ts).
        beforeSleep: async () => {
          if (!devtools || devtools.closed) return;
          await cookies.flush(devtools).catch((err) => this.options.log.error(`desktop ${agentId}: cookies not flushed before sleep: ${err.message}`));
        },
        ready: apps.then(() => this.pointerToTerminal(desktop!, starting.signal)),
      });
      // What the spawner had not started yet when it died failed: rather than a desktop short of a piece, none.
      if (spawner().deaths !== deaths) throw new Error('the spawner of its processes died while it started; the next start makes it anew');
      // The next desktop's network, made once this one no longer needs the machine's cores.
      void desktop.ready.then(() => this.containment.prepare());
      return desktop;
    } catch (err) {
      await stopAll();
      throw err;
    }
  }

  /**
   * The pointer goes over the terminal once it is there: evilwm's focus follows it, so typing goes there first.
   * Not when someone moved it meanwhile, nor after a stop.
   */
  private pointerToTerminal(desktop: RfbDesktop, stopped: AbortSignal): void {
    if (!this.apps.includes('terminal') || this.options.pointerToTerminal === false || stopped.aborted || desktop.closed) return;
    const { x, y } = desktop.cursor();
    if (x === Math.floor(desktop.width / 2) && y === Math.floor(desktop.height / 2)) {
      desktop.pointer(Math.floor(this.width / 4), Math.floor(this.height / 2), 0);
    }
  }

  private track(agentId: number, stop: Promise<void>): Promise<void> {
    this.stopping.set(agentId, stop);
    void stop.finally(() => this.stopping.get(agentId) === stop && this.stopping.delete(agentId));
    return stop;
  }

  private async launchXvnc(sandbox: Sandbox, sock: string): Promise<Launched> {
    const { agentId } = sandbox;
    let lastError = '';
    if (!sandbox.jail) ensureSocketDir();
    for (let attempt = 0; attempt < 20; attempt++) {
      // Contained, the desktop's display is alone in its own /tmp and network namespace.
      const display = sandbox.jail ? JAIL_DISPLAY : this.pickDisplay(agentId);
      // A cookie, so that other local users cannot open the X display (its socket is world-writable).
      const auth = xauthority(display);
      await this.containment.homes.writeFile(agentId, '.Xauthority', auth);
      const args = [
        `:${display}`,
        '-geometry', `${this.width}x${this.height}`, '-depth', '24',
        '-rfbport', '-1', '-rfbunixpath', sock, '-rfbunixmode', '0600',
        '-SecurityTypes', 'None', '-localhost', '-nolisten', 'tcp',
        // Without -AlwaysShared a viewer connecting non-shared (a debugging vncviewer) drops the gateway;
        // without -s 0 the X screensaver blanks a watched but idle desktop after 600 s.
        '-AlwaysShared', '-s', '0',
        '-desktop', `agent-${agentId}`,
        '-auth', join(sandbox.insideHome, '.Xauthority'),
      ];
      const xvnc = sandbox.spawn(this.binary!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      xvnc.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
      xvnc.on('error', (err) => (stderr += err.message));
      const xSocket = sandbox.jail ? sandbox.hostPath(`/tmp/.X11-unix/X${display}`) : X_SOCKET(display);
      const ready = await until(() => existsSync(sandbox.hostPath(sock)) && existsSync(xSocket), xvnc, 10_000);
      if (ready) {
        // Out of the agent's reach before any program of the agent's runs: from here on, no name the agent can
        // write decides where the server connects. A socket that is not the desktop's own ends the start.
        // The X display's socket stays where the desktop's programs connect; the server keeps a link of its own
        // (windows.ts). Uncontained (DESKTOP_SANDBOX=off), nothing is kept: the server connects to the name in the shared /tmp.
        let hostSock: string;
        let xSock: string;
        try {
          hostSock = sandbox.keepSocket('.rfb.sock');
          xSock = sandbox.jail ? sandbox.keepSocket(`.X11-unix/X${display}`, true) : xSocket;
        } catch (err) {
          await stopProcess(xvnc);
          throw err;
        }
        this.lastDisplay.set(agentId, display);
        const pidFile = xvncPidFile(this.options.dataDir, agentId);
        mkdirSync(join(this.options.dataDir, 'run'), { recursive: true, mode: 0o700 });
        // Xvnc itself, not the first process of its sandbox's chain (root's unshare, contained).
        writeFileSync(pidFile, `${sandbox.programOf(xvnc)[0] ?? xvnc.pid}\n${display}\n`, { mode: 0o600 });
        return { xvnc, display, hostSock, xSock, cookie: xauthorityCookie(auth)! };
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

  /**
   * What a previous (killed) server process left of this agent's desktop: under isolation every process
   * of the agent's uid; otherwise the Xvnc its pid file names, when that process is still that Xvnc.
   */
  private async endLeftover(sandbox: Sandbox): Promise<void> {
    const { agentId, home } = sandbox;
    if (sandbox.account) {
      const ended = await sandbox.endAll();
      if (ended) this.options.log.info(`desktop ${agentId}: ended ${ended} leftover process(es)`);
      return;
    }
    const file = xvncPidFile(this.options.dataDir, agentId);
    const pid = Number(readUntrustedFile(file, 64)?.split('\n')[0]);
    const cmdline = Number.isInteger(pid) && pid > 0 ? readProc(pid, 'cmdline') : null;
    if (cmdline?.includes('Xvnc') && cmdline.includes(`agent-${agentId}`) && cmdline.includes(sandbox.socket('.rfb.sock'))) {
      this.options.log.info(`desktop ${agentId}: ending leftover Xvnc ${pid}`);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    rmSync(file, { force: true });
  }
}

/** Asks the browser to close as its own menu would, and waits until its pipe closes (it exited), 3 s at most. */
async function closeBrowser(devtools: DevtoolsPipe): Promise<void> {
  devtools.send('Browser.close').catch(() => {}); // its answer may never come: the browser is gone by then
  for (const deadline = Date.now() + 3000; !devtools.closed && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
}

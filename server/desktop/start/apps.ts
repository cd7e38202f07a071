// What runs on an Xvnc desktop: a window manager, then Debian's Chromium and a terminal, each as the desktop's
// user with its environment. Apps start one at a time, each once its window is up, the terminal last: a
// window that maps later takes the focus, and typing meant for the terminal would go to the browser. They
// start after the desktop is shown (issue 48), so every process is handed over as it starts, and a stop
// meanwhile (the signal) starts nothing more.
import type { Child } from '../../system/spawner/index.ts';
import type { Readable, Writable } from 'node:stream';
import type { Log } from '../../ops/log.ts';
import type { DesktopApp } from '../../config/index.ts';
import type { Sandbox } from '../contain/sandbox.ts';

export type { DesktopApp };

export type AppContext = {
  sandbox: Sandbox;
  /** Added to the desktop's environment: DISPLAY, PULSE_SERVER. */
  env: NodeJS.ProcessEnv;
  width: number;
  height: number;
  log: Log;
  /** The browser's DevTools pipe (what it reads, what it writes): only the server holds the other end. */
  onBrowser?: (toBrowser: Writable, fromBrowser: Readable) => void;
  /** Each process as it starts, so that the desktop's stop ends it. */
  onProcess: (child: Child) => void;
  /** The desktop stops: no further app starts. */
  signal: AbortSignal;
  /** Awaited after the window manager is up and before the apps start (the sound server they play on). */
  before?: Promise<unknown>;
};

const WINDOW_WAIT_MS = 30_000;

/** Starts the window manager and the apps (the terminal last); resolves once their windows show, or the signal stops it. */
export async function startDesktopApps(apps: DesktopApp[], ctx: AppContext): Promise<void> {
  await startWindowManager(ctx);
  await ctx.before;
  const xprop = ctx.sandbox.which('xprop');
  const ordered = [...apps].sort((a, b) => Number(a === 'terminal') - Number(b === 'terminal'));
  let windows = 0;
  for (const app of ordered) {
    if (ctx.signal.aborted) return;
    const child = app === 'terminal' ? startTerminal(ctx) : await startBrowser(ctx);
    if (!child) continue;
    windows++;
    if (xprop && !(await untilOnDesktop(ctx, `${countClients(xprop)} -ge ${windows}`, child, WINDOW_WAIT_MS)) && !ctx.signal.aborted) {
      const ended = child.exitCode !== null || child.signalCode !== null;
      const why = ended ? `(it ended: ${child.signalCode ?? child.exitCode})` : `within ${WINDOW_WAIT_MS / 1000} s`;
      ctx.log.error(`desktop: the ${app}'s window did not show ${why}`);
    }
  }
}

/**
 * Starts the first window manager found and waits until it owns the screen: an xterm mapped at the same
 * moment as the WM stayed invisible in 4 of 4 trials. Readiness is the WM's _NET_SUPPORTING_WM_CHECK.
 */
async function startWindowManager(ctx: AppContext): Promise<void> {
  const half = Math.floor(ctx.width / 2);
  const wm = [
    // evilwm places windows without a user-given position under the pointer; pin Chromium's.
    { bin: 'evilwm', args: ['-fn', 'fixed', '-snap', '8', '-app', 'chromium/Chromium', '-g', `${ctx.width - half - 2}x${ctx.height - 2}+${half}+0`] },
    { bin: 'openbox', args: [] },
  ].find((w) => ctx.sandbox.which(w.bin));
  if (!wm) {
    return ctx.log.info('desktop: no window manager found (install evilwm); windows get no focus handling');
  }
  const child = spawnApp(ctx, wm.bin, wm.args);
  if (!child) return;
  const xprop = ctx.sandbox.which('xprop');
  if (!xprop) ctx.log.error('desktop: xprop is missing (Debian: x11-utils), so apps may start before the window manager is up');
  else if (!(await untilOnDesktop(ctx, `-n "$(${xprop} -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -i 'window id')"`, child, 5000))
    && !ctx.signal.aborted) {
    ctx.log.error(`desktop: ${wm.bin} did not announce itself within 5 s`);
  }
}

function startTerminal(ctx: AppContext): Child | null {
  if (!ctx.sandbox.which('xterm')) return null;
  // DejaVu Sans Mono at 10 pt and 96 dpi: 8 x 17 px cells.
  const half = Math.floor(ctx.width / 2);
  const cols = Math.max(40, Math.floor((half - 12) / 8));
  const rows = Math.max(10, Math.floor((ctx.height - 12) / 17));
  return spawnApp(ctx, 'xterm', ['-fa', 'Monospace', '-fs', '10', '-title', 'Terminal', '-geometry', `${cols}x${rows}+4+4`]);
}

/** Starts a program of the desktop and hands it over; none once the desktop stops. */
function spawnApp(ctx: AppContext, bin: string, args: string[], pipes = 0): Child | null {
  if (ctx.signal.aborted) return null;
  const child = ctx.sandbox.spawn(bin, args, { env: ctx.env, pipes });
  child.on('error', () => {});
  ctx.onProcess(child);
  return child;
}

async function startBrowser(ctx: AppContext): Promise<Child | null> {
  const bin = ['chromium', 'chromium-browser', 'google-chrome'].find((b) => ctx.sandbox.which(b));
  if (!bin) return null;
  // No --user-data-dir: the profile lands in $XDG_CONFIG_HOME/chromium anyway, and a non-default one
  // would change the window's instance name that evilwm's placement rule matches.
  const x = Math.floor(ctx.width / 2);
  // --remote-debugging-pipe: DevTools on its fds 3 and 4, which the server keeps (the vault asks it where the focus
  // is, issue 45); no port, so nothing on the desktop reaches it.
  const args = [
    '--no-first-run', '--no-default-browser-check', '--password-store=basic', '--disable-gpu', '--remote-debugging-pipe',
    '--disable-dev-shm-usage', '--disable-component-update',
    `--window-position=${x},0`, `--window-size=${ctx.width - x},${ctx.height}`,
    'about:blank',
  ];
  // (--test-type hides the infobar that warns about --no-sandbox.)
  if (!(await sandboxWorks(ctx))) args.unshift('--no-sandbox', '--test-type');
  const child = spawnApp(ctx, bin, args, 2);
  if (!child) return null;
  const [toBrowser, fromBrowser] = [child.stdio[3] as Writable, child.stdio[4] as Readable];
  toBrowser.on('error', () => {});
  fromBrowser.on('error', () => {});
  if (ctx.onBrowser) ctx.onBrowser(toBrowser, fromBrowser);
  else fromBrowser.resume(); // nobody asks: what it says is dropped, so it never waits on a full pipe
  return child;
}

let sandboxProbe: Promise<boolean> | null = null;

/**
 * Whether Chromium's sandbox can run for the desktop's user: never as root (Chromium refuses), else when
 * that user may create user, pid and network namespaces (what Debian's Chromium sandbox is made of).
 * Asked once per server: the answer is the machine's, the same for every agent uid.
 */
function sandboxWorks(ctx: AppContext): Promise<boolean> {
  const uid = ctx.sandbox.account?.uid ?? process.getuid?.();
  if (uid === 0) return Promise.resolve(false);
  return (sandboxProbe ??= new Promise<boolean>((resolve) => {
    const probe = ctx.sandbox.spawn('unshare', ['--user', '--pid', '--net', '--fork', 'true']);
    probe.once('error', () => resolve(false));
    probe.once('exit', (code) => resolve(code === 0));
  }).then((works) => {
    if (!works) ctx.log.error('desktop: user namespaces are not available, so Chromium on desktops runs with --no-sandbox');
    return works;
  }));
}

/**
 * Waits until a shell test holds on the desktop, polled there by one process (a contained desktop's every
 * program start costs a few namespaces, so not one start per poll), while `child` lives, for at most `ms`.
 */
async function untilOnDesktop(ctx: AppContext, test: string, child: Child, ms: number): Promise<boolean> {
  const script = `end=$(($(date +%s%N) / 1000000 + ${ms})); until [ ${test} ]; do `
    + `[ $(($(date +%s%N) / 1000000)) -ge $end ] && exit 1; sleep 0.05; done`;
  const probe = ctx.sandbox.spawn('/bin/sh', ['-c', script], { env: ctx.env });
  const ended = new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.once('exit', (code) => resolve(code === 0));
  });
  const died = new Promise<boolean>((resolve) => child.once('exit', () => resolve(false)));
  const stopped = new Promise<boolean>((resolve) => ctx.signal.addEventListener('abort', () => resolve(false), { once: true }));
  const ok = await Promise.race([ended, died, stopped]);
  if (probe.exitCode === null) probe.kill('SIGKILL');
  return ok;
}

/** A shell expression: how many windows the window manager manages (_NET_CLIENT_LIST). */
const countClients = (xprop: string) => `"$(${xprop} -root _NET_CLIENT_LIST 2>/dev/null | grep -o '0x[0-9a-f]*' | wc -l)"`;

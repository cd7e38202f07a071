// The desktop settings (server/desktop): every DESKTOP_* and AGENT_* variable.
import { oneOf, positive, refuse, wholeNumber, type Env } from './parse.ts';

export type DesktopApp = 'terminal' | 'browser';

/** The agents' desktops (server/desktop); every DESKTOP_* and AGENT_* setting. */
export type DesktopConfig = {
  /** DESKTOP_PROVIDER: one Xvnc per agent here, existing VNC servers, or none. */
  provider: 'xvnc' | 'vnc' | 'none';
  /** DESKTOP_IDLE_SLEEP_S: freeze a desktop nobody watched or used for this long (where the cgroup freezer is). */
  sleepMs: number;
  /** DESKTOP_IDLE_STOP_S: stop a desktop nobody watched or used for this long (asleep or not); its home stays. */
  idleMs: number;
  /** DESKTOP_MAX: desktops running at once. */
  max: number;
  /** DESKTOP_APPS: what an Xvnc desktop starts. */
  apps: DesktopApp[];
  /** DESKTOP_GEOMETRY */
  width: number;
  height: number;
  /** DESKTOP_FPS: frames per second sent to a viewer at most. */
  fps: number;
  /** DESKTOP_DISPLAY_BASE: first X display number tried. */
  displayBase: number;
  /** DESKTOP_VNC_ENDPOINTS and DESKTOP_VNC_PASSWORD, for the vnc provider. */
  vncEndpoints: string;
  vncPassword: string | null;
  /** AGENT_UID_BASE: under root, agent n runs as uid/gid base + n. */
  uidBase: number;
  /**
   * DESKTOP_SANDBOX: `on` contains every desktop (its own user, namespaces, network and limits) and starts
   * none when it cannot; `off` (development only) runs desktops uncontained.
   */
  sandbox: 'on' | 'off';
  /** AGENT_NETWORK: `internet` (outbound only; no loopback, host, link-local or private addresses) or `none`. */
  network: 'internet' | 'none';
  /** Per desktop: DESKTOP_PIDS_MAX processes and threads, DESKTOP_MEMORY_MB, DESKTOP_CPUS (cores' worth of time). */
  limits: { pids: number; memoryMb: number; cpus: number };
  /** AGENT_TMP_MB: the size of each desktop's /tmp (a tmpfs of its own). */
  tmpMb: number;
  /**
   * AGENT_HOME_MB: the size of each agent's home (an image of its own), and the most a home's checkpoint holds (issue 50);
   * 0: homes unbounded, on the data directory's disk, and checkpoints of up to 1024 MB.
   */
  homeMb: number;
  /** DESKTOP_MAX_PIXELS: the largest screen (width × height) the server takes from a desktop; a larger one ends it. */
  maxPixels: number;
  /** The server's PATH (where the desktop's programs are found) and its locale and time zone, passed on. */
  path: string;
  lang: string;
  tz: string | null;
};

/** The desktop settings from an environment; `loadConfig` uses it, and tests build theirs with it. */
export function loadDesktopConfig(env: Env = {}): DesktopConfig {
  const provider = (env.DESKTOP_PROVIDER || 'xvnc').toLowerCase();
  if (provider !== 'xvnc' && provider !== 'vnc' && provider !== 'none') {
    throw refuse('DESKTOP_PROVIDER', env.DESKTOP_PROVIDER, 'xvnc, vnc or none');
  }
  const apps = (env.DESKTOP_APPS ?? 'terminal,browser').split(',').map((a) => a.trim()).filter(Boolean);
  const unknown = apps.find((a) => a !== 'terminal' && a !== 'browser');
  if (unknown) throw refuse('DESKTOP_APPS', unknown, 'terminal, browser or both');
  const geometry = /^(\d{3,4})x(\d{3,4})$/.exec(env.DESKTOP_GEOMETRY || '1280x800');
  if (!geometry) throw refuse('DESKTOP_GEOMETRY', env.DESKTOP_GEOMETRY, 'a size like 1280x800');
  const lang = env.LANG && /utf-?8/i.test(env.LANG) ? env.LANG : 'C.UTF-8';
  const sandbox = oneOf(env, 'DESKTOP_SANDBOX', ['on', 'off']);
  const network = oneOf(env, 'AGENT_NETWORK', ['internet', 'none']);
  return {
    provider,
    sleepMs: positive(env, 'DESKTOP_IDLE_SLEEP_S', 120, false) * 1000,
    idleMs: positive(env, 'DESKTOP_IDLE_STOP_S', 3600, false) * 1000,
    max: positive(env, 'DESKTOP_MAX', 8),
    apps: apps as DesktopApp[],
    width: Number(geometry[1]),
    height: Number(geometry[2]),
    fps: positive(env, 'DESKTOP_FPS', 15),
    displayBase: positive(env, 'DESKTOP_DISPLAY_BASE', 20),
    vncEndpoints: env.DESKTOP_VNC_ENDPOINTS ?? '',
    vncPassword: env.DESKTOP_VNC_PASSWORD || null,
    uidBase: positive(env, 'AGENT_UID_BASE', 1_000_000),
    sandbox,
    network,
    limits: {
      pids: positive(env, 'DESKTOP_PIDS_MAX', 2048),
      memoryMb: positive(env, 'DESKTOP_MEMORY_MB', 2048),
      cpus: positive(env, 'DESKTOP_CPUS', 1, false),
    },
    tmpMb: positive(env, 'AGENT_TMP_MB', 512),
    homeMb: env.AGENT_HOME_MB ? wholeNumber('AGENT_HOME_MB', env.AGENT_HOME_MB) : 1024,
    maxPixels: positive(env, 'DESKTOP_MAX_PIXELS', 4096 * 4096),
    path: env.PATH || '/usr/local/bin:/usr/bin:/bin',
    lang,
    tz: env.TZ || null,
  };
}

// The host's own addresses, which a desktop's firewall refuses (slirp4netns connects from the host, so they
// would lead back to it). Read from every interface with `ip -json address show`: Node's networkInterfaces()
// leaves out one without a carrier, and the host still takes connections to its addresses. While any
// desktop's firewall needs them, `ip monitor address` tells of changes, so an address the host gains later
// (DHCP, a new interface) is refused too, in every running desktop.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

type Watcher = { onChange: (addresses: string[]) => void; onError: (err: Error) => void };

/** Every address of this host now; throws when they cannot be read (a firewall without them would leak). */
export function hostAddresses(): string[] {
  const r = spawnSync('ip', ['-json', 'address', 'show'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) throw new Error(`ip address show failed: ${(r.error?.message ?? r.stderr ?? '').trim()}`);
  const links = JSON.parse(r.stdout) as { addr_info?: { local?: string }[] }[];
  return links.flatMap((link) => (link.addr_info ?? []).flatMap((a) => (a.local ? [a.local] : [])));
}

const watchers = new Set<Watcher>();
let monitor: ChildProcess | null = null;
let pending: NodeJS.Timeout | null = null;

/**
 * Calls back with all the host's addresses whenever they may have changed, until the returned function is
 * called: after each change `ip monitor` reports (a burst is one call), and soon after the monitor itself
 * starts (what changed while it was starting). onError: they could not be read, so the caller's firewall
 * may be stale.
 */
export function watchHostAddresses(onChange: Watcher['onChange'], onError: Watcher['onError']): () => void {
  const watcher = { onChange, onError };
  watchers.add(watcher);
  if (!monitor) {
    startMonitor();
    changed();
  }
  return () => {
    watchers.delete(watcher);
    if (watchers.size === 0) stopMonitor();
  };
}

function startMonitor(): void {
  const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' };
  const child = spawn('ip', ['monitor', 'address'], { stdio: ['ignore', 'pipe', 'ignore'], env, detached: true });
  monitor = child;
  child.stdout!.on('data', changed);
  child.once('error', (err) => lost(child, err));
  child.once('exit', (code, signal) => lost(child, new Error(`ip monitor address exited (${signal ?? code})`)));
}

/** The monitor ended on its own: changes would go unseen, so the watchers hear of it. */
function lost(child: ChildProcess, err: Error): void {
  if (monitor !== child) return;
  monitor = null;
  for (const watcher of watchers) watcher.onError(err);
}

function stopMonitor(): void {
  const child = monitor;
  monitor = null;
  if (pending) clearTimeout(pending);
  pending = null;
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

function changed(): void {
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    let addresses: string[];
    try {
      addresses = hostAddresses();
    } catch (err) {
      for (const watcher of watchers) watcher.onError(err as Error);
      return;
    }
    for (const watcher of watchers) watcher.onChange(addresses);
  }, 100);
}

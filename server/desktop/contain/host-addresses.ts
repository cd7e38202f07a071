// The host's own addresses, which a desktop's firewall refuses (slirp4netns connects from the host, so they
// would lead back to it). Read from every interface with `ip -json address show`: Node's networkInterfaces()
// leaves out one without a carrier, and the host still takes connections to its addresses. While any
// desktop's firewall needs them, `ip monitor address` tells of changes, so an address the host gains later
// (DHCP, a new interface) is refused too, in every running desktop.
import { spawnChild, type Child } from '../../system/spawner/index.ts';

type Watcher = { onChange: (addresses: string[]) => void; onError: (err: Error) => void };

/** Every address of this host now; rejects when they cannot be read (a firewall without them would leak). */
export async function hostAddresses(): Promise<string[]> {
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawnChild('ip', ['-json', 'address', 'show'], { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    let [out, err] = ['', ''];
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err = (err + d).slice(-2000)));
    child.once('error', (e) => (clearTimeout(timer), reject(new Error(`ip address show failed: ${e.message}`))));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`ip address show failed: ${err.trim() || (signal ?? `exit ${code}`)}`));
    });
  });
  const links = JSON.parse(stdout) as { addr_info?: { local?: string }[] }[];
  return links.flatMap((link) => (link.addr_info ?? []).flatMap((a) => (a.local ? [a.local] : [])));
}

const watchers = new Set<Watcher>();
let monitor: Child | null = null;
let pending: NodeJS.Timeout | null = null;
/** Reads of the addresses started: only the latest one's answer is told. */
let reads = 0;

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
  const child = spawnChild('ip', ['monitor', 'address'], { stdio: ['ignore', 'pipe', 'ignore'], env, detached: true });
  monitor = child;
  child.stdout!.on('data', changed);
  child.once('error', (err) => lost(child, err));
  child.once('exit', (code, signal) => lost(child, new Error(`ip monitor address exited (${signal ?? code})`)));
}

/** The monitor ended on its own: changes would go unseen, so the watchers hear of it. */
function lost(child: Child, err: Error): void {
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
  pending = setTimeout(async () => {
    pending = null; // a change told while they are read is read again
    const read = ++reads;
    let addresses: string[];
    try {
      addresses = await hostAddresses();
    } catch (err) {
      if (read === reads) for (const watcher of watchers) watcher.onError(err as Error);
      return;
    }
    if (read !== reads) return; // a later read answers for both
    for (const watcher of watchers) watcher.onChange(addresses);
  }, 100);
}

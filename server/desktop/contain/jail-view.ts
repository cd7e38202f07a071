// What a contained desktop sees of the host besides /usr: the host's /etc, read-only, with what tells of the
// host put out of sight, and a /proc whose global counters are fixed. Programs keep what they read (ld.so,
// fonts, certificates, nsswitch, locales, Chromium's and X's settings); the agent no longer reads:
// - the host's users and groups, name, hosts table and machine id: a passwd and group with root, the agent and
//   nobody, its own hostname and hosts, a machine id of its own (stable per agent, derived from nothing secret);
// - the host's services' settings (/etc/ssh, /etc/systemd, cron, sudoers.d, web servers, PostgreSQL,
//   container runtimes, /etc/default): empty; its fstab, subuid/subgid, environment: empty files;
// - /proc/stat's and /proc/loadavg's global counters (every fork on the host, the host's running and total
//   threads, its load): the CPU lines and boot time of /proc/stat as they were when the program started, the
//   counters zero.
// - Chromium gets a managed policy of ours (/etc/chromium over a tmpfs, the host's master_preferences kept): no
//   password manager (its "Save password?" bubble shows a typed password behind an eye), no DevTools pages, no
//   javascript: or view-source: URLs, so that a value the credential vault typed (issue 45) stays in its field.
//   (DevTools go by the URL blocklist: DeveloperToolsAvailability 2 would also close the server's own pipe to pages.)
// The generated files reach bubblewrap through pipes (`--ro-bind-data FD`), so no file of the server's holds
// them. A host without one of these files (a container without /etc/machine-id) keeps it absent.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';

/** Folders of /etc emptied inside (those that exist). */
const HIDDEN_DIRS = [
  'ssh', 'systemd', 'cron.d', 'cron.hourly', 'cron.daily', 'cron.weekly', 'cron.monthly', 'sudoers.d', 'default', 'docker',
  'containerd', 'kubernetes', 'postgresql', 'postgresql-common', 'nginx', 'apache2', 'caddy', 'letsencrypt', 'wireguard',
  'NetworkManager', 'netplan', 'network', 'exim4', 'postfix', 'cloud',
];
const CHROMIUM_POLICY = `${JSON.stringify({
  PasswordManagerEnabled: false, PasswordLeakDetectionEnabled: false, AutofillAddressEnabled: false, AutofillCreditCardEnabled: false,
  URLBlocklist: ['javascript://*', 'view-source:*', 'chrome://inspect', 'devtools://*'],
  BrowserSignin: 0, SyncDisabled: true,
}, null, 1)}\n`;
const CHROMIUM_ETC = '/etc/chromium';

/** Files of /etc emptied inside (those that exist). */
const HIDDEN_FILES = ['fstab', 'crypttab', 'subuid', 'subgid', 'environment', 'exports', 'crontab', 'sudoers', 'ethers', 'networks'];

/**
 * What bubblewrap reads from pipes (`data`), and its arguments for /etc (after /etc is bound) and for /proc
 * (after it is mounted); `fd(i)` is the descriptor bubblewrap reads data[i] from.
 */
export type JailView = { data: Buffer[]; etc: (fd: (i: number) => number) => string[]; proc: (fd: (i: number) => number) => string[] };

/** The host files a desktop of `agentId` (running as uid and gid) sees in place of the host's own. */
export function jailView(agentId: number, account: { uid: number; gid: number }): JailView {
  const user = `agent-${agentId}`;
  const generated: [string, string][] = [
    ['/etc/passwd', `root:x:0:0:root:/root:/usr/sbin/nologin\n${user}:x:${account.uid}:${account.gid}:${user}:/home/agent:/bin/bash\n`
      + 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n'],
    ['/etc/group', `root:x:0:\ntty:x:5:\n${user}:x:${account.gid}:\nnogroup:x:65534:\n`],
    ['/etc/hostname', `${user}\n`],
    ['/etc/hosts', `127.0.0.1\tlocalhost\n127.0.1.1\t${user}\n::1\tlocalhost ip6-localhost ip6-loopback\n`],
    ['/etc/machine-id', `${createHash('sha256').update(`agent-workspace desktop ${agentId}`).digest('hex').slice(0, 32)}\n`],
  ];
  const files = generated.filter(([path]) => isFile(path));
  const procs: [string, string][] = [['/proc/stat', procStat()], ['/proc/loadavg', '0.00 0.00 0.00 1/1 1\n']];
  const policy = isDir(CHROMIUM_ETC) ? CHROMIUM_POLICY : null;
  const data = [...files, ...procs].map(([, text]) => Buffer.from(text)).concat(policy ? [Buffer.from(policy)] : []);
  const bind = (path: string, fd: number) => ['--perms', '0444', '--ro-bind-data', String(fd), path];
  const preferences = `${CHROMIUM_ETC}/master_preferences`;
  return {
    data,
    etc: (fd) => [
      ...files.flatMap(([path], i) => bind(path, fd(i))),
      ...(policy ? [
        '--tmpfs', CHROMIUM_ETC, ...(isFile(preferences) ? ['--ro-bind', preferences, preferences] : []),
        ...bind(`${CHROMIUM_ETC}/policies/managed/agent-workspace.json`, fd(files.length + procs.length)), '--remount-ro', CHROMIUM_ETC,
      ] : []),
      ...HIDDEN_DIRS.map((d) => `/etc/${d}`).filter(isDir).flatMap((d) => ['--tmpfs', d]),
      ...HIDDEN_FILES.map((f) => `/etc/${f}`).filter(isFile).flatMap((f) => ['--ro-bind', '/dev/null', f]),
    ],
    proc: (fd) => procs.flatMap(([path], i) => bind(path, fd(files.length + i))),
  };
}

/** /proc/stat with its CPU lines and boot time, every counter of the host's activity zero. */
function procStat(): string {
  let host = '';
  try {
    host = readFileSync('/proc/stat', 'latin1');
  } catch {}
  const keep = host.split('\n').filter((line) => /^(cpu\d*|btime) /.test(line));
  return `${keep.join('\n')}\nintr 0\nctxt 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n`;
}

// Every program of a desktop starts with this view (14 a start), and each asked ~45 lstat calls of the same paths
// (issue 48): what the host has is kept for HOST_ETC_MS, then asked again (a package installed meanwhile).
const HOST_ETC_MS = 10_000;
const kinds = new Map<string, { kind: 'file' | 'dir' | null; at: number }>();

function kindOf(path: string): 'file' | 'dir' | null {
  const now = Date.now();
  const known = kinds.get(path);
  if (known && now - known.at < HOST_ETC_MS) return known.kind;
  let kind: 'file' | 'dir' | null = null;
  try {
    const stat = lstatSync(path);
    kind = stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : null;
  } catch {} // not there
  kinds.set(path, { kind, at: now });
  return kind;
}

const isFile = (path: string) => kindOf(path) === 'file';
const isDir = (path: string) => kindOf(path) === 'dir';

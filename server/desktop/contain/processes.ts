// Every program of an agent's desktop starts here: with the desktop's clean environment (never the
// server's, which holds API keys, DATABASE_URL and ADMIN_PASSWORD) and, when desktops are isolated,
// as the agent's own uid and gid. Stopping a desktop ends every process of that uid, also the ones
// the desktop started on its own (background jobs), so nothing of it outlives the desktop.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Account = { uid: number; gid: number };

export type AgentSpawnOptions = {
  /** Required on purpose: a child without an explicit environment would inherit the server's. */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  stdio?: StdioOptions;
};

/** Starts a program for the desktop: as `account` when given, with `env` and nothing else. */
export function spawnForDesktop(account: Account | null, command: string, args: string[], options: AgentSpawnOptions): ChildProcess {
  return spawn(command, args, { cwd: options.cwd, stdio: options.stdio ?? 'ignore', env: { ...options.env }, ...(account ?? {}) });
}

/** What a desktop's processes start with: only what programs on a desktop expect. */
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

/** Live (not zombie) processes whose real, effective or saved uid is `uid`. */
export function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, 'latin1');
    } catch {
      continue; // gone meanwhile
    }
    // The kernel escapes newlines in the Name line, so a process cannot forge these lines.
    const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status);
    if (!uids || ![uids[1], uids[2], uids[3]].some((v) => Number(v) === uid)) continue;
    if (/^State:\s+Z/m.test(status)) continue; // a zombie is dead already; only its parent can reap it
    pids.push(Number(entry));
  }
  return pids;
}

/**
 * SIGKILLs every process of the uid until none is left (a process may fork while the others die).
 * Only for the per-agent uids of isolated desktops: never for the server's own uid.
 */
export async function endProcessesOf(uid: number, rounds = 50): Promise<number> {
  if (uid === 0 || uid === process.getuid?.()) throw new Error(`refusing to end every process of uid ${uid}`);
  let signalled = 0;
  for (let round = 0; round < rounds; round++) {
    const pids = processesOf(uid);
    if (!pids.length) return signalled;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        signalled++;
      } catch {}
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return signalled;
}

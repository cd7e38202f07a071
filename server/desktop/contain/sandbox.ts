// How one desktop's programs start: as whom (the agent's own uid and gid when desktops are isolated),
// where (its home) and with what environment (the desktop's own, never the server's, which holds API
// keys, DATABASE_URL and ADMIN_PASSWORD). Built once per desktop by Containment and handed to every
// start, so that this is the one place where a desktop's process is made.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { join } from 'node:path';
import { findBinary } from '../host.ts';
import { endProcessesOf } from './processes.ts';

export type Account = { uid: number; gid: number };

/** What a desktop's programs may know of the server's environment: where programs are, locale, time zone. */
export type HostSettings = { path: string; lang: string; tz: string | null };

export type SpawnOptions = {
  /** Added to (or replacing parts of) the desktop's environment. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdio?: StdioOptions;
};

export class Sandbox {
  /** What every program of this desktop starts with. */
  readonly env: Readonly<NodeJS.ProcessEnv>;

  constructor(
    readonly agentId: number,
    readonly home: string,
    readonly account: Account | null,
    private host: HostSettings,
  ) {
    this.env = Object.freeze(desktopEnv(agentId, home, host));
  }

  /** Starts a program of the desktop: as its account, with its environment plus `options.env`, nothing else. */
  spawn(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    return spawn(command, args, {
      cwd: options.cwd ?? this.home,
      stdio: options.stdio ?? 'ignore',
      env: { ...this.env, ...options.env },
      ...(this.account ?? {}),
    });
  }

  /** The program's full path on the desktop's PATH, or null. */
  which(name: string): string | null {
    return findBinary(name, this.host.path);
  }

  /** Ends every process of the desktop's account (nothing to do when it runs as the server's user). */
  async endAll(): Promise<number> {
    return this.account ? endProcessesOf(this.account.uid) : 0;
  }
}

function desktopEnv(agentId: number, home: string, host: HostSettings): NodeJS.ProcessEnv {
  return {
    PATH: host.path,
    HOME: home,
    USER: `agent-${agentId}`,
    LOGNAME: `agent-${agentId}`,
    SHELL: '/bin/bash',
    LANG: host.lang,
    ...(host.tz ? { TZ: host.tz } : {}),
    XAUTHORITY: join(home, '.Xauthority'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, '.run'),
  };
}

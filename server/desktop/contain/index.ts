// Who a local desktop runs as, and in what: its home and account (homes.ts) and the sandbox its programs
// start in (sandbox.ts). One Containment per server; it makes the Sandbox of each desktop it starts.
import type { DesktopConfig } from '../../config.ts';
import type { Log } from '../../ops/log.ts';
import { findBinary } from '../host.ts';
import { DesktopHomes } from './homes.ts';
import { Sandbox, type Account, type HostSettings } from './sandbox.ts';

export type { Account, Sandbox };

export type ContainmentOptions = {
  dataDir: string;
  log: Log;
  config: Pick<DesktopConfig, 'uidBase' | 'path' | 'lang' | 'tz'>;
  /** Run each desktop as its own user (needs root). @default whether the server runs as root */
  isolate?: boolean;
};

export class Containment {
  readonly homes: DesktopHomes;
  private host: HostSettings;

  constructor(options: ContainmentOptions) {
    this.homes = new DesktopHomes(options.dataDir, options.log, options.config.uidBase, options.isolate);
    this.host = { path: options.config.path, lang: options.config.lang, tz: options.config.tz };
  }

  homeOf(agentId: number): string {
    return this.homes.homeOf(agentId);
  }

  /** The uid/gid the agent's desktop runs as, or null when it runs as the server's user. */
  account(agentId: number): Account | null {
    return this.homes.account(agentId);
  }

  /** The agent's home, made ready (its own, with ~/Desktop and a shell profile), and its sandbox. */
  async open(agentId: number): Promise<Sandbox> {
    await this.homes.prepare(agentId, ['Desktop', '.run']);
    await this.homes.ensureShellProfile(agentId);
    return this.sandbox(agentId);
  }

  /** The agent's sandbox without preparing anything (a file drop on a desktop that is not running). */
  sandbox(agentId: number): Sandbox {
    return new Sandbox(agentId, this.homes.homeOf(agentId), this.homes.account(agentId), this.host);
  }

  /** Copies a file onto the agent's ~/Desktop (running or not), never over an existing file. */
  putFile(agentId: number, sourcePath: string, name: string): Promise<string> {
    return this.homes.putFile(this.sandbox(agentId), sourcePath, name);
  }

  /** The program's full path on the desktops' PATH, or null. */
  which(name: string): string | null {
    return findBinary(name, this.host.path);
  }
}

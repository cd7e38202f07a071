// One desktop network made before anyone asks (issue 48): a namespace with its firewall and slirp4netns needs nothing
// of the agent, and making one was the slowest piece of a contained cold start beside the home (at a load of ~6 on
// 2 cores: 0.9-1.2 s for the namespace, its loopback, firewall and slirp4netns; the home 0.7-1.0 s). A network made
// ahead has never been used; it goes to one desktop, and is removed with it like any other (never handed on), so
// nothing of one tenant reaches the next. It is named for AGENT_UID_BASE, a uid no agent has, so what a killed
// server left of it is removed when the next server makes its own.
import type { Log } from '../../ops/log.ts';
import { DesktopNetwork, type NetworkMode } from './network.ts';

/** The networks made ahead in this process (from the start of their making), removed should it exit without closing its pool. */
const AHEAD = new Set<DesktopNetwork>();
process.once('exit', () => {
  for (const network of AHEAD) network.closeAtExit(); // its slirp4netns (a process group of its own) too
});

export class NetworkPool {
  private next: Promise<DesktopNetwork | null> | null = null;
  private closed = false;

  /** `owner`: the uid its networks are named for before an agent takes them (AGENT_UID_BASE). */
  constructor(private owner: number, private mode: NetworkMode, private log: Log) {}

  /** Starts making the next network, unless one is there or being made. */
  fill(): void {
    if (this.closed || this.next) return;
    this.next = DesktopNetwork.open(DesktopNetwork.nameFor(this.owner), this.mode, this.log, AHEAD).then(
      (network) => (this.closed ? (AHEAD.delete(network), void network.close(), null) : network),
      (err: Error) => (this.log.error(`desktop networks: one made ahead failed (${err.message}); the next start makes its own`), null),
    );
  }

  /** A network for the desktop of `uid`: the one made ahead when it is whole, else one made now. */
  async take(uid: number): Promise<DesktopNetwork> {
    const pending = this.next; // taken at once: a start beside this one makes its own
    this.next = null;
    const ahead = await pending;
    if (ahead) AHEAD.delete(ahead);
    await DesktopNetwork.removeLeftovers(uid);
    if (ahead?.whole) return ahead;
    void ahead?.close();
    return DesktopNetwork.open(DesktopNetwork.nameFor(uid), this.mode, this.log);
  }

  /** Removes the network made ahead (the server stops). */
  close(): void {
    this.closed = true;
    void this.next?.then((network) => {
      if (network) AHEAD.delete(network);
      void network?.close();
    });
    this.next = null;
  }
}

// Placement across instances that share one PostgreSQL (issue 18), in front of this instance's LocalDesktops:
// an agent's desktop runs on the one instance holding its lease (leases.ts); every other instance gets it
// relayed (relay.ts), an RfbDesktop like a local one, so routes, the runner, recordings and screenshots never
// learn where it runs. A heartbeat renews this instance's leases; a holder that is stale (or whose pid is gone
// on this host) loses its agents to whoever asks next, who starts the desktop afresh. DESKTOP_HOST=0 (a web
// tier) never holds a lease: it asks a desktop host to start the desktop by opening its relay.
// Only for the Xvnc provider: a `vnc` endpoint is reachable from every instance as it is.
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { HttpError } from '../../http/errors.ts';
import type { DesktopConfig, FleetConfig } from '../../config/index.ts';
import type { Db } from '../../db/db.ts';
import type { Log } from '../../ops/log.ts';
import { DesktopUnavailable } from '../errors.ts';
import type { RfbDesktop } from '../rfb/desktop.ts';
import type { Desktop, Desktops, DesktopStatus } from '../types.ts';
import { allLeases, claimLease, leaseOf, liveInstances, releaseAll, releaseLease, renewLeases, type Instance, type Lease } from './leases.ts';
import type { Instance as ServerInstance } from '../../db/instance.ts';
import type { LocalDesktops } from './local-desktops.ts';
import { desktopPath, internalCall, InternalCallFailed, internalGet, RelayRefused, sendFile } from './internal-call.ts';
import { connectRelay, type RelayedDesktop } from './relay.ts';

export type FleetDesktopsOptions = {
  local: LocalDesktops;
  db: Db;
  log: Log;
  fleet: FleetConfig;
  desktop: DesktopConfig;
  /** This server (db/instance.ts): its id, its row in the registry and its heartbeat; its address is given to start(). */
  instance: ServerInstance;
};

/**
 * A relayed desktop without viewers or input for this long is let go (the holder's own idle stop follows), and sooner
 * than the holder would put it to sleep: the relay counts there as a viewer, and kept the desktop awake, so not
 * checkpointed, for two minutes after a run this instance drove on it.
 */
const RELAY_IDLE_MS = 120_000;

/** How long acquire keeps trying to place a desktop (a holder just died, a claim under way elsewhere). */
const PLACE_MS = 45_000;

export class FleetDesktops extends EventEmitter implements Desktops {
  /** Leases this instance took over from a dead or stale holder. */
  takeovers = 0;
  readonly local: LocalDesktops;
  private relayed = new Map<number, RelayedDesktop>();
  private placing = new Map<number, Promise<Desktop>>();
  private liveHosts = 0;
  private timer: NodeJS.Timeout | null = null;
  private closing = false;
  private me: Instance;
  /** Resolved by start(): nothing is placed before this instance knows the address it announces. */
  private ready: Promise<void>;
  private markReady!: () => void;

  constructor(private o: FleetDesktopsOptions) {
    super();
    this.local = o.local;
    this.me = { id: o.instance.id, host: o.instance.host, pid: o.instance.pid, address: '' };
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    o.local.mayRestart = async (agentId) => (await leaseOf(o.db, agentId, o.fleet.leaseStaleSeconds))?.instance_id === this.me.id;
    o.local.on('stopped', (agentId: number) => {
      releaseLease(o.db, this.me.id, agentId).catch((err) => o.log.error(`desktop ${agentId}: lease not released: ${err.message}`));
    });
  }

  get instanceId(): string {
    return this.me.id;
  }

  /** The INTERNAL_URL this instance announces ('' before start()): internal calls are signed for it. */
  get address(): string {
    return this.me.address;
  }

  /** Announces this instance at `address` (INTERNAL_URL) and starts the heartbeat that renews its leases. */
  async start(address: string): Promise<void> {
    this.me.address = address;
    await this.o.instance.announce(address, this.o.fleet.desktopHost);
    await this.o.instance.start();
    await this.beat();
    this.markReady();
    const every = Math.max(500, Math.min(10_000, (this.o.fleet.leaseStaleSeconds * 1000) / 3));
    this.timer = setInterval(() => void this.beat().catch((err) => this.o.log.error(`desktop leases: heartbeat failed: ${err.message}`)), every);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    if (this.closing) return;
    const held = new Set(await renewLeases(this.o.db, this.me.id));
    // A desktop whose lease another instance took (we were stale: paused, cut off) must not run twice.
    for (const d of this.local.list()) {
      if (held.has(d.agentId) || this.placing.has(d.agentId)) continue;
      // Claimed after the renewal above read the leases: ours after all.
      if ((await leaseOf(this.o.db, d.agentId, this.o.fleet.leaseStaleSeconds))?.instance_id === this.me.id) continue;
      this.o.log.error(`desktop ${d.agentId}: its lease went to another instance; stopping it here`);
      await this.local.stop(d.agentId);
    }
    // A relay to a holder that went stale or lost the lease is dropped: its viewers reconnect and take the desktop over.
    for (const [agentId, d] of this.relayed) {
      const lease = await leaseOf(this.o.db, agentId, this.o.fleet.leaseStaleSeconds);
      if (lease && !this.dead(lease) && lease.address === d.relayedFrom) continue;
      this.o.log.info(`desktop ${agentId}: its holder at ${d.relayedFrom} no longer holds it; dropping the relay`);
      this.relayed.delete(agentId);
      await d.stop();
    }
    const now = Date.now();
    for (const [agentId, d] of this.relayed) {
      // A relay nobody watches or drives (opened for a screenshot, a status) goes sooner than a desktop idles.
      if (d.viewers === 0 && now - d.lastActivity > Math.min(this.o.desktop.idleMs, this.o.desktop.sleepMs, RELAY_IDLE_MS)) {
        this.relayed.delete(agentId);
        await d.stop();
      }
    }
    this.liveHosts = (await liveInstances(this.o.db, this.o.fleet.leaseStaleSeconds)).filter((i) => i.desktop_host).length;
  }

  status(): DesktopStatus {
    if (this.o.fleet.desktopHost) return this.local.status();
    if (this.liveHosts > 0) return { available: true, provider: 'xvnc' };
    const reason = 'No desktop host is running (this instance has DESKTOP_HOST=0 and no other instance starts desktops).';
    return { available: false, provider: 'none', reason };
  }

  running(agentId: number): RfbDesktop | RelayedDesktop | null {
    const relayed = this.relayed.get(agentId);
    return this.local.running(agentId) ?? (relayed && !relayed.closed ? relayed : null);
  }

  /** The desktops running on this instance. */
  list(): RfbDesktop[] {
    return this.local.list();
  }

  /** The desktops of other instances this one relays now. */
  relays(): RelayedDesktop[] {
    return [...this.relayed.values()].filter((d) => !d.closed);
  }

  /** The live instance other than this one that holds the agent's desktop (its home is the newest there), or null. */
  async holderOf(agentId: number): Promise<string | null> {
    if (this.running(agentId)) return null;
    const lease = await leaseOf(this.o.db, agentId, this.o.fleet.leaseStaleSeconds);
    return lease && lease.instance_id !== this.me.id && !this.dead(lease) ? lease.instance_id : null;
  }

  /** The running desktop wherever it runs (relayed from its holder), without starting one. */
  async find(agentId: number): Promise<Desktop | null> {
    const here = this.running(agentId);
    if (here) return here;
    await this.ready;
    const lease = await leaseOf(this.o.db, agentId, this.o.fleet.leaseStaleSeconds);
    if (!lease || lease.instance_id === this.me.id || this.dead(lease)) return null;
    return this.acquire(agentId).catch(() => null);
  }

  acquire(agentId: number): Promise<Desktop> {
    if (this.closing) return Promise.reject(new DesktopUnavailable('The server is shutting down'));
    const here = this.running(agentId);
    if (here) {
      here.touch(); // whoever asks needs it: a sleeping desktop wakes
      return Promise.resolve(here);
    }
    let placing = this.placing.get(agentId);
    if (!placing) {
      placing = this.place(agentId).finally(() => this.placing.delete(agentId));
      this.placing.set(agentId, placing);
    }
    return placing;
  }

  /** For the relay: the desktop here, started if needed, when this instance holds (or now takes) its lease. */
  async acquireHere(agentId: number): Promise<RfbDesktop> {
    if (!this.o.fleet.desktopHost) throw new RelayRefused(409, 'This instance starts no desktops (DESKTOP_HOST=0)');
    await this.ready;
    for (let attempt = 0; attempt < 50; attempt++) {
      const claim = await claimLease(this.o.db, this.me, agentId, this.o.fleet.leaseStaleSeconds, (l) => this.dead(l));
      if (claim.held === 'mine') return this.startHere(agentId, claim.takenFrom);
      if (claim.held === 'other') throw new RelayRefused(409, `The desktop of agent ${agentId} runs on instance ${claim.lease.instance_id}`);
      await sleep(50);
    }
    throw new RelayRefused(409, `The lease of agent ${agentId}'s desktop is busy`);
  }

  private async place(agentId: number): Promise<Desktop> {
    await this.ready;
    const deadline = Date.now() + PLACE_MS;
    let last = '';
    for (let attempt = 1; ; attempt++) {
      try {
        if (this.o.fleet.desktopHost) {
          const claim = await claimLease(this.o.db, this.me, agentId, this.o.fleet.leaseStaleSeconds, (l) => this.dead(l));
          // A desktop that fails to start here fails as it does on one server (not retried).
          if (claim.held === 'mine') return await this.startHere(agentId, claim.takenFrom).catch((err) => Promise.reject(new StartFailed(err)));
          if (claim.held === 'other') return await this.relay(agentId, claim.lease.address);
        } else {
          const lease = await leaseOf(this.o.db, agentId, this.o.fleet.leaseStaleSeconds);
          const address = lease && !this.dead(lease) ? lease.address : await this.pickHost();
          if (!address) throw new DesktopUnavailable(this.status().reason ?? 'No desktop host is running');
          return await this.relay(agentId, address);
        }
        last = 'its lease is being claimed by another instance';
      } catch (err) {
        if (err instanceof StartFailed) throw err.cause;
        if (err instanceof DesktopUnavailable || this.closing) throw err;
        last = (err as Error).message;
      }
      if (Date.now() > deadline) throw new DesktopUnavailable(`The desktop of agent ${agentId} could not be placed: ${last}`);
      await sleep(Math.min(1000, 100 * attempt));
    }
  }

  private async startHere(agentId: number, takenFrom: Lease | null): Promise<RfbDesktop> {
    if (takenFrom) {
      this.takeovers++;
      const why = takenFrom.stale ? 'stale' : 'its process is gone';
      this.o.log.info(`desktop ${agentId}: lease taken over from ${takenFrom.instance_id} (${why}); starting afresh`);
    }
    try {
      return await this.local.acquire(agentId);
    } catch (err) {
      await releaseLease(this.o.db, this.me.id, agentId).catch(() => {});
      throw err;
    }
  }

  private async relay(agentId: number, address: string): Promise<RelayedDesktop> {
    // The local desktops' frame caps: the runner's settle after an action waits on the unwatched one.
    const frameInterval = { watched: Math.round(1000 / this.o.desktop.fps), unwatched: 200 };
    const desktop = await connectRelay({ agentId, address, secret: this.o.fleet.internalSecret, frameInterval });
    if (this.closing) {
      await desktop.stop();
      throw new DesktopUnavailable('The server is shutting down');
    }
    this.relayed.set(agentId, desktop);
    desktop.once('closed', () => this.relayed.get(agentId) === desktop && this.relayed.delete(agentId));
    return desktop;
  }

  /** The live desktop host with the fewest desktops (a web tier asks it to start one). */
  private async pickHost(): Promise<string | null> {
    const hosts = (await liveInstances(this.o.db, this.o.fleet.leaseStaleSeconds)).filter((i) => i.desktop_host);
    hosts.sort((a, b) => a.desktops - b.desktops);
    return hosts[0]?.address ?? null;
  }

  /** A holder that stopped renewing, or whose process is gone on this very host. */
  private dead(lease: Lease): boolean {
    return this.o.instance.isDead({ id: lease.instance_id, host: lease.host, pid: lease.pid, stale: lease.stale });
  }

  /** Which instance runs which agent's desktop (Ops and Admin pages). */
  async placements(): Promise<{ agent_id: number; instance_id: string; stale: boolean; heartbeat_at: Date }[]> {
    const rows = await allLeases(this.o.db, this.o.fleet.leaseStaleSeconds);
    return rows.map((l) => ({ agent_id: l.agent_id, instance_id: l.instance_id, stale: l.stale, heartbeat_at: l.heartbeat_at }));
  }

  /** The live instances, with their role and how many desktops each runs (Ops page). */
  async instances(): Promise<{ id: string; address: string; desktop_host: boolean; desktops: number; heartbeat_at: Date }[]> {
    const rows = await liveInstances(this.o.db, this.o.fleet.leaseStaleSeconds);
    return rows.map((i) => ({ id: i.id, address: i.address, desktop_host: i.desktop_host, desktops: i.desktops, heartbeat_at: i.heartbeat_at }));
  }

  /**
   * A signed call to the live instance `instanceId` (recordings pass a stop or audio to the instance recording);
   * undefined when that instance is not alive (gone, or stale). Its error statuses come back as HttpErrors.
   */
  /** A signed GET to another live instance, its answer streamed (internalGet); undefined when that one is not alive. */
  async open(instanceId: string, path: string, headers?: Record<string, string>): Promise<IncomingMessage | undefined> {
    const live = (await liveInstances(this.o.db, this.o.fleet.leaseStaleSeconds)).find((i) => i.id === instanceId);
    if (!live || this.o.instance.isDead({ ...live, stale: false })) return undefined;
    return internalGet({ address: live.address, secret: this.o.fleet.internalSecret }, path, headers);
  }

  async call(instanceId: string, method: string, path: string, body?: Readable, headers?: Record<string, string>): Promise<unknown | undefined> {
    const live = (await liveInstances(this.o.db, this.o.fleet.leaseStaleSeconds)).find((i) => i.id === instanceId);
    if (!live || this.o.instance.isDead({ ...live, stale: false })) return undefined;
    try {
      return await internalCall({ address: live.address, secret: this.o.fleet.internalSecret }, method, path, body, headers);
    } catch (err) {
      if (err instanceof InternalCallFailed && err.status < 500) throw new HttpError(err.status, err.message.replace(/^.*?: /, ''));
      throw err;
    }
  }

  /**
   * For a deleted agent: its desktop stops and its home goes on every desktop host (the lease row went with the
   * agent, and a home may be left on an instance that held the desktop before a takeover).
   */
  async remove(agentId: number): Promise<void> {
    await this.ready;
    const relayed = this.relayed.get(agentId);
    this.relayed.delete(agentId);
    await relayed?.stop();
    const others = (await liveInstances(this.o.db, this.o.fleet.leaseStaleSeconds)).filter((i) => i.desktop_host && i.id !== this.me.id);
    await Promise.all(others.map((i) => internalCall({ address: i.address, secret: this.o.fleet.internalSecret }, 'DELETE', desktopPath(agentId))
      .catch((err) => this.o.log.error(`desktop ${agentId}: not removed on ${i.id}: ${err.message}`))));
    await this.local.remove(agentId);
  }

  async putFile(agentId: number, sourcePath: string, name: string): Promise<string | null> {
    await this.ready;
    const lease = await leaseOf(this.o.db, agentId, this.o.fleet.leaseStaleSeconds);
    if (lease && lease.instance_id !== this.me.id && !this.dead(lease)) {
      return sendFile({ agentId, address: lease.address, secret: this.o.fleet.internalSecret }, sourcePath, name);
    }
    if (!this.o.fleet.desktopHost) return null;
    return this.local.putFile(agentId, sourcePath, name);
  }

  /** Here, where this instance's runs use their desktops (one held elsewhere is held there by the relay). */
  useForRun(agentId: number): () => void {
    return this.local.useForRun(agentId);
  }

  async stopAll(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.relayed.values()].map((d) => d.stop()));
    this.relayed.clear();
    await this.local.stopAll();
    await releaseAll(this.o.db, this.me.id).catch((err) => this.o.log.error(`desktop leases: not released: ${err.message}`));
    await this.o.instance.stop();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Carries a local start's error past the placing loop's retries. */
class StartFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('start failed');
  }
}

// The in-process event bus the wings publish on and sockets subscribe to; its topics and what each carries are
// realtime/topics.ts's. With PostgreSQL, events also travel through NOTIFY so that every instance hears them.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Topic } from './topics.ts';

export type Listener<P = unknown> = (payload: P) => void;

export type Bus = {
  publish<P>(topic: Topic<P>, payload: NoInfer<P>): void;
  subscribe<P>(topic: Topic<P>, listener: Listener<P>): () => void;
};

export class LocalBus implements Bus {
  private emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0); // one listener per open socket
  }
  publish<P>(topic: Topic<P>, payload: NoInfer<P>): void {
    this.emitter.emit(topic, payload);
  }
  subscribe<P>(topic: Topic<P>, listener: Listener<P>): () => void {
    this.emitter.on(topic, listener);
    return () => this.emitter.off(topic, listener);
  }
  /** Delivers locally without re-broadcasting (used by the NOTIFY bridge). */
  deliver(topic: string, payload: unknown): void {
    this.emitter.emit(topic, payload);
  }
}

const CHANNEL = 'aw_events';
const NOTIFY_LIMIT = 7900; // PostgreSQL's NOTIFY payload limit is 8000 bytes

type Notifier = {
  notify(payload: string): Promise<void>;
  listen(onPayload: (payload: string) => void): Promise<void>;
};

/** Bridges a LocalBus over LISTEN/NOTIFY; events too large for NOTIFY stay local. */
export class PostgresBus implements Bus {
  private instance = randomUUID();
  constructor(private local: LocalBus, private pg: Notifier, private onError: (m: string) => void) {}

  async start(): Promise<void> {
    await this.pg.listen((text) => {
      try {
        const { from, topic, payload } = JSON.parse(text);
        if (from !== this.instance) this.local.deliver(topic, payload);
      } catch {
        this.onError('bus: unreadable notification');
      }
    });
  }

  publish<P>(topic: Topic<P>, payload: NoInfer<P>): void {
    this.local.publish(topic, payload);
    const text = JSON.stringify({ from: this.instance, topic, payload });
    if (Buffer.byteLength(text) > NOTIFY_LIMIT) return;
    this.pg.notify(text).catch((err) => this.onError(`bus: notify failed: ${err.message}`));
  }

  subscribe<P>(topic: Topic<P>, listener: Listener<P>): () => void {
    return this.local.subscribe(topic, listener);
  }
}

export { CHANNEL as BUS_CHANNEL };

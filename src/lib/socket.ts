// Reconnecting WebSocket after reconnecting-websocket/partysocket: optional delayed first connect, backoff on
// abnormal closes up to maxRetries, a send queue, a URL provider called per connect (fresh token each time), and
// partysocket's connection timeout (a handshake that hangs counts as a failed attempt instead of staying
// CONNECTING forever). Leaves out jitter and partysocket's minUptime: spec §4 resets the counter on open.

export type Timers = {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (id: unknown) => void;
};

export type SocketOptions = {
  protocols?: string | string[];
  /** ms before the first connect (the message socket uses 100). @default 0 */
  connectDelay?: number;
  /** Reconnect attempts after abnormal closes before giving up. @default 5 */
  maxRetries?: number;
  /** Delay before reconnect attempt n (n starts at 1). @default exponentialBackoff */
  retryDelay?: (attempt: number) => number;
  /** ms a connect may stay CONNECTING before it counts as a failed attempt; 0 waits forever. @default 10000 */
  connectionTimeout?: number;
  /** @default globalThis.WebSocket */
  WebSocket?: typeof WebSocket;
  /** @default the global setTimeout/clearTimeout */
  timers?: Timers;
};

/** 1 s, 2 s, 4 s … doubling per attempt, capped at 30 s (spec §9). */
export const exponentialBackoff = (attempt: number): number => Math.min(1000 * 2 ** (attempt - 1), 30_000);

/** The same delay for every attempt (the action socket: 2 s apart). */
export const fixedDelay = (ms: number) => (_attempt: number): number => ms;

export const DEFAULTS = { connectDelay: 0, maxRetries: 5, retryDelay: exponentialBackoff, connectionTimeout: 10_000 };

/** The events a ReconnectingSocket dispatches; `error` may carry what failed, `giveup` ends the retries. */
export type SocketEventMap = {
  open: Event;
  message: MessageEvent;
  close: CloseEvent;
  error: Event & { error?: unknown };
  giveup: Event;
};
type Listener<K extends keyof SocketEventMap> = (this: ReconnectingSocket, ev: SocketEventMap[K]) => void;

// Typed overloads on top of EventTarget's, as lib.dom does for WebSocket.
export interface ReconnectingSocket {
  addEventListener<K extends keyof SocketEventMap>(type: K, listener: Listener<K>, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof SocketEventMap>(type: K, listener: Listener<K>, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions): void;
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;
const NORMAL_CLOSURE = 1000;

// Captured with the EventTarget base at load time so events always come from the same realm as the target
// (Node's EventTarget rejects happy-dom events and vice versa). Node 20 has no CloseEvent.
const EventImpl = Event;
const MessageEventImpl = typeof MessageEvent === 'function' ? MessageEvent : undefined;
const CloseEventImpl = typeof CloseEvent === 'function' ? CloseEvent : undefined;

function messageEvent(data: unknown): MessageEvent {
  if (MessageEventImpl) return new MessageEventImpl('message', { data });
  return Object.assign(new EventImpl('message'), { data }) as MessageEvent;
}

function closeEvent({ code, reason, wasClean }: Pick<CloseEvent, 'code' | 'reason' | 'wasClean'>): CloseEvent {
  if (CloseEventImpl) return new CloseEventImpl('close', { code, reason, wasClean });
  return Object.assign(new EventImpl('close'), { code, reason, wasClean }) as CloseEvent;
}

type UrlProvider = string | (() => string | Promise<string>);
type Handlers = {
  open: ((ev: Event) => void) | null;
  message: ((ev: MessageEvent) => void) | null;
  close: ((ev: CloseEvent) => void) | null;
  error: ((ev: Event) => void) | null;
};

export class ReconnectingSocket extends EventTarget {
  static readonly CONNECTING = CONNECTING;
  static readonly OPEN = OPEN;
  static readonly CLOSING = 2;
  static readonly CLOSED = CLOSED;

  // Accessors rather than fields, as on a native WebSocket: happy-dom's EventTarget also calls an *own*
  // on<type> property of a subclass, which would run every handler twice in tests.
  private _on: Handlers = { open: null, message: null, close: null, error: null };
  get onopen() { return this._on.open; }
  set onopen(handler) { this._on.open = handler; }
  get onmessage() { return this._on.message; }
  set onmessage(handler) { this._on.message = handler; }
  get onclose() { return this._on.close; }
  set onclose(handler) { this._on.close = handler; }
  get onerror() { return this._on.error; }
  set onerror(handler) { this._on.error = handler; }

  private _url: UrlProvider;
  private _protocols: string | string[] | undefined;
  private _maxRetries: number;
  private _retryDelay: (attempt: number) => number;
  private _connectionTimeout: number;
  private _connectTimer: unknown = undefined;
  private _WebSocket: typeof WebSocket;
  private _timers: Timers;
  private _ws: WebSocket | null = null;
  private _timer: unknown = undefined;
  private _retryCount = 0;
  private _queue: string[] = [];
  /** Set by close(): also cancels a connect that is still waiting on its delay or URL provider. */
  private _closeCalled = false;
  /** No further connects: closed by us, closed with 1000, or given up. */
  private _stopped = false;

  constructor(url: UrlProvider, options: SocketOptions = {}) {
    super();
    this._url = url;
    this._protocols = options.protocols;
    this._maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
    this._retryDelay = options.retryDelay ?? DEFAULTS.retryDelay;
    this._connectionTimeout = options.connectionTimeout ?? DEFAULTS.connectionTimeout;
    const Impl = options.WebSocket ?? globalThis.WebSocket;
    if (!Impl) throw new TypeError('ReconnectingSocket: no WebSocket implementation available');
    this._WebSocket = Impl;
    this._timers = options.timers ?? {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
    };
    // The on* handlers run as the first listeners, as on a native WebSocket.
    this.addEventListener('open', (ev) => this._on.open?.(ev));
    this.addEventListener('message', (ev) => this._on.message?.(ev));
    this.addEventListener('close', (ev) => this._on.close?.(ev));
    this.addEventListener('error', (ev) => this._on.error?.(ev));

    const delay = options.connectDelay ?? DEFAULTS.connectDelay;
    if (delay > 0) this._timer = this._timers.setTimeout(() => this._connect(), delay);
    else this._connect();
  }

  get readyState(): number {
    if (this._ws) return this._ws.readyState;
    return this._stopped ? CLOSED : CONNECTING;
  }

  /** Reconnect attempts since the last successful open. */
  get retryCount(): number {
    return this._retryCount;
  }

  /** Sends now when open, otherwise queues until the next open. Dropped once the socket has stopped for good. */
  send(data: string): void {
    if (this._stopped) return;
    if (this._ws?.readyState === OPEN) this._ws.send(data);
    else this._queue.push(data);
  }

  /** Close for good: no reconnect afterwards, even when called during the connect delay or a backoff wait. */
  close(code = NORMAL_CLOSURE, reason?: string): void {
    this._closeCalled = true;
    this._stopped = true;
    this._queue = [];
    this._timers.clearTimeout(this._timer);
    this._timers.clearTimeout(this._connectTimer);
    const ws = this._ws;
    if (ws && (ws.readyState === CONNECTING || ws.readyState === OPEN)) ws.close(code, reason);
  }

  private _connect(): void {
    this._timer = undefined;
    if (this._closeCalled) return;
    let url: string | Promise<string>;
    try {
      url = typeof this._url === 'function' ? this._url() : this._url;
    } catch (error) {
      return this._fail(error);
    }
    if (typeof url === 'string') this._open(url);
    else url.then((resolved) => this._open(resolved), (error) => this._fail(error));
  }

  private _open(url: string): void {
    if (this._closeCalled) return;
    let ws: WebSocket;
    try {
      ws = new this._WebSocket(url, this._protocols);
    } catch (error) {
      return this._fail(error);
    }
    this._ws = ws;
    if (this._connectionTimeout > 0) {
      this._connectTimer = this._timers.setTimeout(() => this._timeout(ws), this._connectionTimeout);
    }
    ws.onopen = () => {
      this._timers.clearTimeout(this._connectTimer);
      this._retryCount = 0;
      for (const data of this._queue.splice(0)) ws.send(data);
      this.dispatchEvent(new EventImpl('open'));
    };
    ws.onmessage = (ev) => this.dispatchEvent(messageEvent(ev.data));
    ws.onerror = () => this.dispatchEvent(new EventImpl('error'));
    ws.onclose = (ev) => {
      this._timers.clearTimeout(this._connectTimer);
      this._ws = null;
      const abnormal = ev.code !== NORMAL_CLOSURE && !this._closeCalled;
      // Settle readyState before listeners run: CLOSED for good, or CONNECTING while a retry is pending.
      if (!abnormal || this._retryCount >= this._maxRetries) this._stopped = true;
      this.dispatchEvent(closeEvent(ev));
      if (abnormal) this._retryOrGiveUp();
    };
  }

  /** A handshake still pending after connectionTimeout: drop that socket (its events no longer reach us) and retry. */
  private _timeout(ws: WebSocket): void {
    if (this._ws !== ws || ws.readyState !== CONNECTING) return;
    ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
    this._ws = null;
    try {
      ws.close();
    } catch {
      // some implementations refuse close() while CONNECTING; the handlers are detached either way
    }
    this._fail(new Error(`Connection timed out after ${this._connectionTimeout} ms`));
  }

  /** A URL provider or constructor failure counts as a failed attempt, like an abnormal close. */
  private _fail(error: unknown): void {
    if (this._closeCalled) return;
    this.dispatchEvent(Object.assign(new EventImpl('error'), { error }));
    this._retryOrGiveUp();
  }

  private _retryOrGiveUp(): void {
    if (this._closeCalled) return;
    if (this._retryCount >= this._maxRetries) {
      this._stopped = true;
      this._queue = [];
      this.dispatchEvent(new EventImpl('giveup'));
      return;
    }
    this._retryCount += 1;
    this._timer = this._timers.setTimeout(() => this._connect(), this._retryDelay(this._retryCount));
  }
}

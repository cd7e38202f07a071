// The Chrome DevTools Protocol over the pipe of `chromium --remote-debugging-pipe`: JSON messages, each ended
// by a NUL byte (Chromium reads its fd 3, writes its fd 4). Chromium runs in the agent's desktop, so what comes
// out of the pipe is untrusted: bounded in size and time, and anything malformed closes the pipe. Events are
// dropped, not kept: the callers here only ask and wait for answers.
import type { Readable, Writable } from 'node:stream';

export class DevtoolsError extends Error {
  override name = 'DevtoolsError';
}

export type DevtoolsPipeOptions = {
  /** A message larger than this closes the pipe. @default 8 MiB */
  maxMessageBytes?: number;
  /** How long one command may wait for its answer. @default 3000 */
  timeoutMs?: number;
};

const DEFAULTS = { maxMessageBytes: 8 * 1024 * 1024, timeoutMs: 3000 };
/** The first capacity of the buffer that holds a message split over chunks. */
const FIRST_CAPACITY = 64 * 1024;

type Pending = { method: string; resolve: (value: any) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };

export class DevtoolsPipe {
  private readonly max: number;
  private readonly timeoutMs: number;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** A message's start while its NUL has not come: one growing buffer rather than a list of chunks, because a
   *  peer that writes a byte at a time would make that list millions of Buffer objects long. */
  private partial: Buffer | null = null;
  private partialLength = 0;
  private closeReason = '';

  constructor(
    private readonly toBrowser: Writable,
    private readonly fromBrowser: Readable,
    options: DevtoolsPipeOptions = {},
  ) {
    this.max = options.maxMessageBytes ?? DEFAULTS.maxMessageBytes;
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    // The error listeners stay after close: an 'error' without one would crash the server.
    const ended = (what: string) => () => this.shut(what);
    fromBrowser.on('error', ended('the browser side failed')).once('end', ended('the browser closed it'));
    fromBrowser.once('close', ended('the browser closed it'));
    toBrowser.on('error', ended('writing to the browser failed')).once('close', ended('the browser closed it'));
    fromBrowser.on('data', this.onData);
  }

  get closed(): boolean {
    return this.closeReason !== '';
  }

  send<T = any>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    if (this.closed) return Promise.reject(new DevtoolsError(`${method}: the DevTools pipe is closed (${this.closeReason})`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new DevtoolsError(`${method}: no answer from the browser within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      const message = sessionId === undefined ? { id, method, params } : { id, method, params, sessionId };
      this.toBrowser.write(`${JSON.stringify(message)}\0`);
    });
  }

  close(): void {
    this.shut('closed by the server');
  }

  private shut(reason: string): void {
    if (this.closed) return;
    this.closeReason = reason;
    this.fromBrowser.off('data', this.onData);
    this.partial = null;
    for (const [, { method, reject, timer }] of this.pending) {
      clearTimeout(timer);
      reject(new DevtoolsError(`${method}: the DevTools pipe is closed (${reason})`));
    }
    this.pending.clear();
    // Destroyed rather than paused, so nothing more is read into memory and Chromium sees the pipe end.
    this.fromBrowser.destroy();
    this.toBrowser.destroy();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let end = data.indexOf(0); end >= 0 && !this.closed; end = data.indexOf(0)) {
      if (!this.keep(data.subarray(0, end))) return;
      const message = this.partial ? this.partial.subarray(0, this.partialLength) : data.subarray(0, end);
      this.partial = null;
      this.partialLength = 0;
      data = data.subarray(end + 1);
      this.handle(message);
    }
    if (data.length > 0 && !this.closed) this.keep(data, true);
  };

  /** Adds bytes to the partial message (only once one is started, or when `start`); false once too large. */
  private keep(bytes: Buffer, start = false): boolean {
    if (this.partialLength + bytes.length > this.max) {
      this.shut(`a message over ${this.max} bytes`);
      return false;
    }
    if (!this.partial && !start) return true;
    const needed = this.partialLength + bytes.length;
    if (!this.partial || needed > this.partial.length) {
      let capacity = Math.max(this.partial?.length ?? 0, FIRST_CAPACITY);
      while (capacity < needed) capacity *= 2;
      const grown = Buffer.allocUnsafe(Math.min(capacity, this.max));
      this.partial?.copy(grown, 0, 0, this.partialLength);
      this.partial = grown;
    }
    bytes.copy(this.partial, this.partialLength);
    this.partialLength = needed;
    return true;
  }

  private handle(bytes: Buffer): void {
    let message: any;
    try {
      message = JSON.parse(bytes.toString('utf8'));
    } catch {
      return this.shut('a message that is not JSON');
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return this.shut('a message that is not an object');
    if (!('id' in message)) {
      if (typeof message.method !== 'string') this.shut('a message with neither id nor method');
      return; // an event: nobody here listens
    }
    if (!Number.isSafeInteger(message.id)) return this.shut('a message with a bad id');
    const waiting = this.pending.get(message.id);
    if (!waiting) return; // late (timed out) or never ours
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    const { error, result } = message;
    if (error !== undefined) {
      const text = typeof error?.message === 'string' ? error.message.slice(0, 300) : 'an error';
      waiting.reject(new DevtoolsError(`${waiting.method}: ${text}${typeof error?.code === 'number' ? ` (${error.code})` : ''}`));
    } else if (typeof result !== 'object' || result === null) {
      waiting.reject(new DevtoolsError(`${waiting.method}: an answer without a result`));
    } else waiting.resolve(result);
  }
}

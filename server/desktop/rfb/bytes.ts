// The bytes an RFB server has sent and the client has not used yet, as the chunks the socket gave. The
// handshake reads them by exact counts as they come (read); after it, whole messages are cut from them
// synchronously (peek and take, see messages.ts).

export class Bytes {
  private chunks: Buffer[] = [];
  private available = 0;
  private wake: (() => void) | null = null;
  private error: Error | null = null;

  get size(): number {
    return this.available;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.available += chunk.length;
    this.wake?.();
  }

  fail(error: Error): void {
    this.error ??= error;
    this.wake?.();
  }

  /** The next n bytes, once they have arrived. */
  async read(n: number): Promise<Buffer> {
    while (this.available < n) {
      if (this.error) throw this.error;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
    return this.take(n);
  }

  /** n bytes from `offset` on, left in place; the caller has checked that they are here. */
  peek(offset: number, n: number): Buffer {
    for (let i = 0; i < this.chunks.length; i++) {
      const c = this.chunks[i];
      if (offset < c.length) return offset + n <= c.length ? c.subarray(offset, offset + n) : this.gather(i, offset, n);
      offset -= c.length;
    }
    throw new RangeError('peek past the buffered bytes');
  }

  /** The byte at `offset`, left in place; the caller has checked that it is here. */
  byte(offset: number): number {
    for (const c of this.chunks) {
      if (offset < c.length) return c[offset];
      offset -= c.length;
    }
    throw new RangeError('peek past the buffered bytes');
  }

  /** The next n bytes, used up; the caller has checked that they are here. */
  take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0); // an empty rectangle's body, maybe after the last chunk
    this.available -= n;
    const head = this.chunks[0];
    if (head.length >= n) {
      if (head.length === n) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
      return head.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0];
      const part = Math.min(c.length, n - filled);
      c.copy(out, filled, 0, part);
      filled += part;
      if (part === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(part);
    }
    return out;
  }

  /** A copy of n bytes that start `offset` into chunk `first` and run on into the chunks after it. */
  private gather(first: number, offset: number, n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    let filled = this.chunks[first].copy(out, 0, offset);
    for (let i = first + 1; filled < n; i++) filled += this.chunks[i].copy(out, filled, 0, n - filled);
    return out;
  }
}

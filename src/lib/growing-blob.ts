// A download as it arrives: a Blob of what came so far, which grows until the end (or a failure), and a promise
// for the next piece. The replay plays the first part of a recording while the rest is still on its way.

export class GrowingBlob {
  private parts: Uint8Array[] = [];
  private cached: Blob | null = new Blob([]);
  private waiters: (() => void)[] = [];
  /** No more will come: the end, or a failure (then `error`). */
  done = false;
  error: Error | null = null;

  /** Something whole already. */
  static whole(blob: Blob): GrowingBlob {
    const grown = new GrowingBlob();
    grown.cached = blob;
    grown.done = true;
    return grown;
  }

  /** Fills from a response body as it is read. */
  static reading(body: ReadableStream<Uint8Array> | null): GrowingBlob {
    const grown = new GrowingBlob();
    void grown.read(body);
    return grown;
  }

  /** Everything that arrived so far. */
  get blob(): Blob {
    return (this.cached ??= new Blob(this.parts as BlobPart[]));
  }

  /** Resolves once more arrived, or it ended. */
  grown(): Promise<void> {
    return this.done ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The whole of it, once it ended; rejects when it failed. */
  async finished(): Promise<Blob> {
    while (!this.done) await this.grown();
    if (this.error) throw this.error;
    return this.blob;
  }

  private async read(body: ReadableStream<Uint8Array> | null): Promise<void> {
    try {
      const reader = body?.getReader();
      for (;;) {
        const next = await reader?.read();
        if (!next || next.done) break;
        this.parts.push(next.value);
        this.cached = null;
        this.wake();
      }
    } catch (error) {
      this.error = error instanceof Error ? error : new Error(String(error));
    }
    this.done = true;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }
}

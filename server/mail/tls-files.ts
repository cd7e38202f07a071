// The intake's certificate and key, read from their files and read again when either changes (a
// renewed certificate needs no restart). Checked as each client connects; a half-written pair
// keeps the previous one until both read and make a valid context.
import { readFile, stat } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';

export type TlsFiles = { certFile: string; keyFile: string };
export type TlsPair = { cert: Buffer; key: Buffer };

export class TlsReloader {
  private stamp = '';
  private loaded = false;

  constructor(private files: TlsFiles, private onError: (message: string) => void) {}

  /** The pair when it is new (first call, or a file changed since), else null. */
  async changed(): Promise<TlsPair | null> {
    const stamp = await this.stampOf().catch(() => this.stamp);
    if (this.loaded && stamp === this.stamp) return null;
    try {
      const [cert, key] = await Promise.all([readFile(this.files.certFile), readFile(this.files.keyFile)]);
      createSecureContext({ cert, key }); // throws for a key that does not fit the certificate
      this.stamp = stamp;
      this.loaded = true;
      return { cert, key };
    } catch (err) {
      if (!this.loaded) throw new Error(`SMTP_TLS_CERT/SMTP_TLS_KEY cannot be used: ${(err as Error).message}`);
      this.onError(`smtp: the changed certificate cannot be used, keeping the previous one: ${(err as Error).message}`);
      return null;
    }
  }

  private async stampOf(): Promise<string> {
    const [cert, key] = await Promise.all([stat(this.files.certFile), stat(this.files.keyFile)]);
    return `${cert.mtimeMs}:${cert.size}:${cert.ino}/${key.mtimeMs}:${key.size}:${key.ino}`;
  }
}

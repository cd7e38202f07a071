// The intake's certificate and key, read from their files and read again when either changes (a
// renewed certificate needs no restart). Checked when a client asks for STARTTLS; a half-written
// pair keeps the previous one until both read and match.
import { readFile, stat } from 'node:fs/promises';
import { createSecureContext, type SecureContext } from 'node:tls';

export type TlsFiles = { certFile: string; keyFile: string };

export class TlsReloader {
  private context: SecureContext | null = null;
  private stamp = '';

  constructor(private files: TlsFiles, private onError: (message: string) => void) {}

  /** The current context, re-read first when a file changed since the last read. */
  async current(): Promise<SecureContext> {
    const stamp = await this.stampOf().catch(() => this.stamp);
    if (!this.context || stamp !== this.stamp) {
      try {
        const [cert, key] = await Promise.all([readFile(this.files.certFile), readFile(this.files.keyFile)]);
        this.context = createSecureContext({ cert, key });
        this.stamp = stamp;
      } catch (err) {
        if (!this.context) throw new Error(`SMTP_TLS_CERT/SMTP_TLS_KEY cannot be used: ${(err as Error).message}`);
        this.onError(`smtp: the changed certificate cannot be used, keeping the previous one: ${(err as Error).message}`);
      }
    }
    return this.context;
  }

  private async stampOf(): Promise<string> {
    const [cert, key] = await Promise.all([stat(this.files.certFile), stat(this.files.keyFile)]);
    return `${cert.mtimeMs}:${cert.size}:${cert.ino}/${key.mtimeMs}:${key.size}:${key.ino}`;
  }
}

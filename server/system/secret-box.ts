// The server's one secret outside the database (SECRETS_KEY, else $DATA_DIR/secrets.key made at the first start):
// it seals the secrets the database keeps (AES-256-GCM) and keys the audit chain, each with a key of its own
// derived from it (HKDF). A reader of the database alone gets neither. Rotation is left out.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartRefused } from './start-refused.ts';

/** The key does not open what the database keeps (or cannot be read): the start stops with this one line. */
export class SecretsKeyError extends StartRefused {
  override name = 'SecretsKeyError';
}

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  private readonly sealing: Buffer;

  /** `source` names where the key came from, for the error that says it does not fit. */
  constructor(private readonly key: Buffer, readonly source: string) {
    if (key.length !== 32) throw new SecretsKeyError(`${source} must be 32 bytes`);
    this.sealing = this.derive('secrets-at-rest');
  }

  /** A key of its own for one purpose (the audit chain's HMAC, …). */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `agent-workspace ${purpose}`, 32));
  }

  /** `plain` sealed for the place named by `label` (a sealed value moved to another row does not open there). */
  seal(plain: string, label: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealing, iv).setAAD(Buffer.from(label));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** What seal() sealed for `label`; a value this key did not seal there stops with SecretsKeyError. */
  open(sealed: string, label: string): string {
    if (!SecretBox.isSealed(sealed)) throw new SecretsKeyError(`${label} is not sealed`);
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealing, raw.subarray(0, IV_BYTES)).setAAD(Buffer.from(label));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsKeyError(`the secrets key (${this.source}) does not open ${label} in the database: start every instance with the key`
        + ' that sealed it (SECRETS_KEY, or the secrets.key of the data directory that first started on this database)');
    }
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }
}

/** HMAC-SHA256 in hex. */
export function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

/** 32 bytes from base64 (standard or URL-safe) or hex; null when it is neither. */
export function parseKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-f]{64}$/i.test(value)) return Buffer.from(value, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) return null;
  const key = Buffer.from(value, 'base64');
  return key.length === 32 ? key : null;
}

/** The configured key, else the data directory's secrets.key (keyFile). */
export function loadSecretBox(configured: Buffer | null, dataDir: string): SecretBox {
  if (configured) return new SecretBox(configured, 'SECRETS_KEY');
  const file = join(dataDir, 'secrets.key');
  return new SecretBox(keyFile(file, dataDir, (message) => new SecretsKeyError(message)), file);
}

/**
 * The 32-byte key in `file`, made on the first start (0600, written whole: a file written elsewhere, then linked in,
 * so a start racing this one reads the same key or makes none). A file that cannot be read or holds no key throws
 * `refuse(message)`.
 */
export function keyFile(file: string, dataDir: string, refuse: (message: string) => Error): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw refuse(`${file} is unreadable: ${(err as Error).message}`);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
    writeFileSync(draft, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, file);
    } catch (linkErr) {
      if ((linkErr as NodeJS.ErrnoException).code !== 'EEXIST') throw linkErr;
    } finally {
      unlinkSync(draft);
    }
    text = readFileSync(file, 'utf8');
  }
  const key = parseKey(text);
  if (!key) throw refuse(`${file} does not hold a 32-byte key (base64 or hex)`);
  return key;
}

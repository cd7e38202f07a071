// The vault's own key (VAULT_KEY, else $DATA_DIR/vault.key made at the first start), apart from the secrets key:
// the stored credentials can be moved or wiped with it without touching the rest. VAULT_KEY_PREVIOUS still opens
// what an older key sealed (reported stale, so the caller can seal it again) while the key is being rotated.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { keyFile } from '../system/secret-box.ts';
import { StartRefused } from '../system/start-refused.ts';

/** The vault key is unusable or does not open a stored value: the message names the place, never the value. */
export class VaultKeyError extends StartRefused {
  override name = 'VaultKeyError';
}

const PREFIX = 'vault:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key of its own, so the raw key is never used for AES directly (and could key something else later). */
function sealingKey(key: Buffer, name: string): Buffer {
  if (key.length !== 32) throw new VaultKeyError(`${name} must be 32 bytes`);
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'agent-workspace vault', 32));
}

/** The plain text, or null when this key did not seal `raw` for `label` (the GCM tag does not check out). */
function tryOpen(key: Buffer, raw: Buffer, label: string): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES)).setAAD(Buffer.from(label));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

export class VaultBox {
  private readonly current: Buffer;
  private readonly previous: Buffer | null;

  /** `source` names where the current key came from, for the error that says it does not fit. */
  constructor(current: Buffer, previous: Buffer | null, readonly source: string) {
    this.current = sealingKey(current, source);
    this.previous = previous ? sealingKey(previous, 'VAULT_KEY_PREVIOUS') : null;
  }

  /** `plain` sealed for the place named by `label` (a sealed value moved to another credential does not open there). */
  seal(plain: string, label: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv).setAAD(Buffer.from(label));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** What seal() sealed for `label`; `stale` when only the previous key opens it (seal it again under the current one). */
  open(sealed: string, label: string): { plain: string; stale: boolean } {
    const raw = VaultBox.isSealed(sealed) ? Buffer.from(sealed.slice(PREFIX.length), 'base64url') : null;
    if (raw && raw.length >= IV_BYTES + TAG_BYTES) {
      const plain = tryOpen(this.current, raw, label);
      if (plain !== null) return { plain, stale: false };
      const old = this.previous && tryOpen(this.previous, raw, label);
      if (old !== null) return { plain: old, stale: true };
    }
    throw new VaultKeyError(`the vault key (${this.source}) does not open ${label}: start with the key that sealed it`
      + ' (VAULT_KEY, or the vault.key of the data directory that sealed it; an older key goes in VAULT_KEY_PREVIOUS)');
  }

  static isSealed(text: string): boolean {
    return text.startsWith(PREFIX);
  }
}

/** The configured key, else the data directory's vault.key (keyFile: made 0600 at the first start). */
export function loadVaultBox(configured: { key: Buffer | null; previous: Buffer | null }, dataDir: string): VaultBox {
  if (configured.key) return new VaultBox(configured.key, configured.previous, 'VAULT_KEY');
  const file = join(dataDir, 'vault.key');
  return new VaultBox(keyFile(file, dataDir, (message) => new VaultKeyError(message)), configured.previous, file);
}

// At start: does this instance's vault key open the vault the database keeps? A known text sealed with the key
// (vault_check) answers without touching a credential. Opened only with VAULT_KEY_PREVIOUS, every value is
// rewrapped under VAULT_KEY first (one transaction; a second instance doing the same waits on the row lock, then
// finds the check opening with its current key). Neither opens it: the start stops, saying so.
import type { Db } from '../db/db.ts';
import { SEALED, sealLabel } from './credentials.ts';
import { VaultKeyError, type VaultBox } from './vault-box.ts';

const CHECK_TEXT = 'agent-workspace vault';
const CHECK_LABEL = 'vault:check';

/** Returns how many values were rewrapped under the current key, null when it was the vault's key already. */
export async function checkVaultKey(db: Db, box: VaultBox): Promise<number | null> {
  return db.tx(async (q) => {
    const [row] = await q.query<{ sealed: string }>('SELECT sealed FROM vault_check WHERE id = 1 FOR UPDATE');
    if (!row) {
      await q.query('INSERT INTO vault_check (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [box.seal(CHECK_TEXT, CHECK_LABEL)]);
      return null;
    }
    let opened;
    try {
      opened = box.open(row.sealed, CHECK_LABEL);
    } catch {
      throw new VaultKeyError(`the vault key (${box.source}) does not open the credential vault in the database: start every instance with the`
        + ' same VAULT_KEY, or give the key that sealed it as VAULT_KEY_PREVIOUS to rewrap the vault under the new one');
    }
    if (opened.plain !== CHECK_TEXT) throw new VaultKeyError('the credential vault\'s check value is not the vault\'s');
    if (!opened.stale) return null;
    let rewrapped = 0;
    const rows = await q.query<Record<string, string | number | null>>(
      'SELECT id, username_sealed, password_sealed, totp_sealed FROM credentials FOR UPDATE');
    for (const r of rows) {
      const id = Number(r.id);
      const next = SEALED.map((f) => {
        const sealed = r[`${f}_sealed`] as string | null;
        if (!sealed) return null;
        rewrapped++;
        return box.seal(box.open(sealed, sealLabel(id, f)).plain, sealLabel(id, f));
      });
      await q.query('UPDATE credentials SET username_sealed = $2, password_sealed = $3, totp_sealed = $4 WHERE id = $1', [id, ...next]);
    }
    await q.query('UPDATE vault_check SET sealed = $1 WHERE id = 1', [box.seal(CHECK_TEXT, CHECK_LABEL)]);
    return rewrapped;
  });
}

// The credentials a user keeps (issue 45), in SQL. Values are sealed for their own row and field
// (`credential:<id>:<field>`): a sealed value copied into another row does not open there. What leaves this file
// for a reader is Credential, which holds no value: has_password and has_totp say whether there is one.
import type { Queryable } from '../db/db.ts';
import type { CredentialInput } from './input.ts';
import type { VaultBox } from './vault-box.ts';

export type Credential = {
  id: number; owner_id: number; name: string; username: string; has_password: boolean; has_totp: boolean;
  targets: string[]; notes: string; values_changed_at: string; created_at: string; updated_at: string;
  grants: { agent_ids: number[]; ask_each_time: boolean };
};

/** The sealed fields, as their columns name them. */
export const SEALED = ['username', 'password', 'totp'] as const;
export type SealedField = (typeof SEALED)[number];

export const sealLabel = (id: number, field: SealedField) => `credential:${id}:${field}`;

type Row = Omit<Credential, 'username' | 'has_password' | 'has_totp' | 'grants'> & {
  username_sealed: string | null; has_password: boolean; has_totp: boolean; ask_each_time: boolean; agent_ids: number[];
};

const SELECT = `SELECT c.id, c.owner_id, c.name, c.username_sealed, c.password_sealed IS NOT NULL AS has_password,
    c.totp_sealed IS NOT NULL AS has_totp, c.targets, c.notes, c.ask_each_time, c.values_changed_at, c.created_at, c.updated_at,
    COALESCE((SELECT array_agg(g.agent_id ORDER BY g.agent_id) FROM credential_grants g WHERE g.credential_id = c.id), '{}') AS agent_ids
  FROM credentials c`;

export async function listCredentials(q: Queryable, box: VaultBox, ownerId: number): Promise<Credential[]> {
  const rows = await q.query<Row>(`${SELECT} WHERE c.owner_id = $1 ORDER BY lower(c.name), c.id`, [ownerId]);
  return rows.map((r) => present(box, r));
}

/** The owner's credential, or null (another user's reads as missing). */
export async function getCredential(q: Queryable, box: VaultBox, ownerId: number, id: number): Promise<Credential | null> {
  const [row] = await q.query<Row>(`${SELECT} WHERE c.id = $1 AND c.owner_id = $2`, [id, ownerId]);
  return row ? present(box, row) : null;
}

/** A new credential; null when the owner already has one of that name. */
export async function createCredential(q: Queryable, box: VaultBox, ownerId: number, input: CredentialInput): Promise<number | null> {
  const [row] = await q.query<{ id: number }>(
    `INSERT INTO credentials (owner_id, name, targets, notes) VALUES ($1, $2, $3, $4)
     ON CONFLICT (owner_id, name) DO NOTHING RETURNING id`,
    [ownerId, input.name, JSON.stringify(input.targets ?? []), input.notes ?? '']);
  if (!row) return null;
  await writeValues(q, box, row.id, input, true);
  return row.id;
}

/** Applies the keys set in `input`; false when the new name is taken. Returns which keys changed. */
export async function updateCredential(q: Queryable, box: VaultBox, id: number, input: CredentialInput): Promise<string[] | false> {
  if (input.name !== undefined) {
    const [taken] = await q.query(
      'SELECT 1 FROM credentials o JOIN credentials c ON c.owner_id = o.owner_id WHERE c.id = $1 AND o.name = $2 AND o.id <> $1', [id, input.name]);
    if (taken) return false;
  }
  await q.query(
    `UPDATE credentials SET name = COALESCE($2, name), targets = COALESCE($3::jsonb, targets), notes = COALESCE($4, notes), updated_at = now()
     WHERE id = $1`,
    [id, input.name ?? null, input.targets ? JSON.stringify(input.targets) : null, input.notes ?? null]);
  await writeValues(q, box, id, input, false);
  return Object.keys(input);
}

export async function deleteCredential(q: Queryable, id: number): Promise<void> {
  await q.query('DELETE FROM credentials WHERE id = $1', [id]);
}

/** Seals each value set in `input` ('' clears it); the change time moves when a value changed. */
async function writeValues(q: Queryable, box: VaultBox, id: number, input: CredentialInput, always: boolean): Promise<void> {
  const set = SEALED.filter((f) => input[f] !== undefined);
  if (!set.length && !always) return;
  const sealed = SEALED.map((f) => (input[f] ? box.seal(input[f]!, sealLabel(id, f)) : null));
  await q.query(
    `UPDATE credentials SET
       username_sealed = CASE WHEN $5 THEN $2 ELSE username_sealed END,
       password_sealed = CASE WHEN $6 THEN $3 ELSE password_sealed END,
       totp_sealed = CASE WHEN $7 THEN $4 ELSE totp_sealed END,
       values_changed_at = now()
     WHERE id = $1`,
    [id, ...sealed, ...SEALED.map((f) => input[f] !== undefined)]);
}

function present(box: VaultBox, r: Row): Credential {
  return {
    id: r.id, owner_id: r.owner_id, name: r.name,
    username: r.username_sealed ? openOr(box, r.username_sealed, sealLabel(r.id, 'username')) : '',
    has_password: r.has_password, has_totp: r.has_totp, targets: r.targets, notes: r.notes,
    values_changed_at: r.values_changed_at, created_at: r.created_at, updated_at: r.updated_at,
    grants: { agent_ids: r.agent_ids.map(Number), ask_each_time: r.ask_each_time },
  };
}

/** A value that does not open (a row written by hand) reads as empty: the owner can still see, fix or delete the credential. */
function openOr(box: VaultBox, sealed: string, label: string): string {
  try {
    return box.open(sealed, label).plain;
  } catch {
    return '';
  }
}

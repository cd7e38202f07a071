// The audit chain's keyed evidence, computed here and never by the database: each event's HMAC over the hash of
// the one before it and its fields, and the seal over where the chain starts (its anchor, and the events written
// before the chain was keyed). The key is derived from the server's secret (server/system/secret-box.ts), which the
// database never sees: a role that can rewrite the table cannot make hashes that verify.
import { createHash } from 'node:crypto';
import { hmac, type SecretBox } from '../system/secret-box.ts';

/** An event's fields as stored: ids as numbers or strings, `at` as UTC text with microseconds (to_char … US), `detail` as jsonb's text. */
export type ChainedEvent = {
  id: number | string; at: string; instance: string; actor_type: string; actor_id: number | string | null; actor_label: string | null;
  impersonator_id: number | string | null; impersonator_label: string | null; action: string; target_type: string | null;
  target_id: string | null; request_id: string | null; ip: string | null; user_agent: string | null; detail: string;
};

let chainKey: Buffer | null = null;

/** The chain's key for this process (start() sets it once; there is one server per process). */
export function useAuditKey(secrets: SecretBox): void {
  chainKey = auditKeyOf(secrets);
}

export function auditKeyOf(secrets: SecretBox): Buffer {
  return secrets.derive('audit-chain');
}

export function auditKey(): Buffer {
  if (!chainKey) throw new Error('the audit chain has no key: start() sets it (useAuditKey)');
  return chainKey;
}

/** An event's hash: HMAC-SHA256 over the previous hash, the fields (as strings or null) and the detail's jsonb text. */
export function eventHash(prev: string, e: ChainedEvent, key = auditKey()): string {
  const fields = [e.id, e.at, e.instance, e.actor_type, e.actor_id, e.actor_label, e.impersonator_id, e.impersonator_label, e.action,
    e.target_type, e.target_id, e.request_id, e.ip, e.user_agent].map((v) => (v === null || v === undefined ? null : String(v)));
  return hmac(key, `${prev}\n${JSON.stringify(fields)}\n${e.detail}`);
}

/**
 * An event written before the chain was keyed (migration 015): SHA-256 over the previous hash and the text of
 * jsonb_build_array of its fields, which the verifier reads from the database and hashes here.
 */
export function legacyHash(prev: string, arrayText: string): string {
  return createHash('sha256').update(prev + arrayText, 'utf8').digest('hex');
}

/**
 * Where the chain starts: the first event kept (0 and '' until a prune) and the hash it names; events before
 * keyed_from were written unkeyed, and the last of them has legacy_hash.
 */
export type ChainStart = { anchor_id: number | string; anchor_hash: string; keyed_from: number | string; legacy_hash: string };

/** Nothing pruned, nothing unkeyed: the one start that needs no seal (no event can name the '' before the first). */
export function isGenesis(s: ChainStart): boolean {
  return Number(s.anchor_id) === 0 && Number(s.keyed_from) === 1 && s.legacy_hash === '';
}

export function startSeal(s: ChainStart, key = auditKey()): string {
  return hmac(key, `audit-chain-start\n${JSON.stringify([String(s.anchor_id), s.anchor_hash, String(s.keyed_from), s.legacy_hash])}`);
}

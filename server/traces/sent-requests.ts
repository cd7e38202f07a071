// What a model call sent, stored without repeating itself (issue 43). Each call of a thread sends the conversation
// so far, so keeping every request whole made a thread's traces grow with the square of its length. Instead:
//  - each message, and the system prompt and tools (the same every call), is a part kept once per owner under a
//    SHA-256 of its JSON (llm_trace_parts, migration 020);
//  - a trace keeps its request without them, and request_parts says where they went:
//    {"base": an earlier trace of the thread, "keep": how many of its messages come first, "messages": the hashes
//     of the rest, "system": hash, "tools": hash (left out when the base's are the same), "depth": bases below}.
// A call's messages are almost always the previous call's plus one or two, so a trace names only what is new. Every
// MAX_DEPTH calls a trace names all its parts again, which bounds the walk that puts a request back together.
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/db.ts';

type Refs = { base?: number; keep?: number; messages: string[]; depth: number; system?: string; tools?: string };
type Part = { hash: string; body: string };
/** The refs to store, with all the hashes the request sent beside them (not stored: JSON.stringify leaves symbols out). */
const ALL = Symbol('all messages');
type Sent = Refs & { [ALL]: Resolved };

const SHARED_KEYS = ['system', 'tools'] as const;
const MAX_DEPTH = 100;
const REMEMBERED_THREADS = 1000;

/** What the last request recorded per thread by this process sent, as hashes: the next one's base. */
type Resolved = { messages: string[]; system?: string; tools?: string };
const lastSent = new Map<number, Resolved & { id: number; depth: number }>();

const json = (v: unknown) => JSON.stringify(v).replace(/\\u0000/g, ''); // as the traces' other JSON is stored

/**
 * A request without its messages, system prompt and tools; where they went; and the parts to keep. A request of
 * another shape (no messages array) is kept whole (refs null).
 */
export function splitRequest(threadId: number, request: unknown): { request: unknown; refs: Sent | null; parts: Part[] } {
  if (!request || typeof request !== 'object' || !Array.isArray((request as any).messages)) return { request, refs: null, parts: [] };
  const parts = new Map<string, string>();
  const part = (value: unknown) => {
    const body = json(value);
    // 192 bits of the SHA-256, in base64url: 32 characters a reference, and no collision to fear within an owner.
    const hash = createHash('sha256').update(body).digest().subarray(0, 24).toString('base64url');
    parts.set(hash, body);
    return hash;
  };
  const rest: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  const all: Resolved = { messages: (rest.messages as unknown[]).map(part) };
  delete rest.messages;
  for (const key of SHARED_KEYS) {
    if (rest[key] !== undefined && rest[key] !== null) all[key] = part(rest[key]);
    delete rest[key];
  }
  // The thread's previous request is the base, unless the walk down would get too long or it had a part this lacks.
  const last = lastSent.get(threadId);
  const base = last && last.depth < MAX_DEPTH && SHARED_KEYS.every((k) => all[k] || !last[k]) ? last : null;
  let refs: Refs;
  if (base) {
    let keep = 0;
    while (keep < all.messages.length && all.messages[keep] === base.messages[keep]) keep++;
    refs = { base: base.id, keep, messages: all.messages.slice(keep), depth: base.depth + 1 };
  } else refs = { messages: all.messages, depth: 0 };
  // Named here unless the base names the same.
  for (const key of SHARED_KEYS) if (all[key] && all[key] !== base?.[key]) refs[key] = all[key];
  // Only the parts this trace names: those of its base are kept already.
  const named = new Set([...refs.messages, ...SHARED_KEYS.map((k) => refs[k])]);
  const kept = [...parts].filter(([hash]) => named.has(hash)).map(([hash, body]) => ({ hash, body }));
  return { request: rest, refs: Object.assign(refs, { [ALL]: all }), parts: kept };
}

/** Notes the trace just recorded for the thread: the base of its next one. */
export function sent(threadId: number, traceId: number, refs: Sent): void {
  lastSent.delete(threadId);
  lastSent.set(threadId, { ...refs[ALL], id: traceId, depth: refs.depth });
  if (lastSent.size > REMEMBERED_THREADS) lastSent.delete(lastSent.keys().next().value!);
}

/**
 * Puts each trace's request back together as it was sent (traces read with request and request_parts), in a
 * round trip for the bases and one for the parts. Bases and parts are only ever the same owner's.
 */
export async function putBackRequests(db: Queryable, traces: Record<string, any>[]): Promise<void> {
  const split = traces.filter((t) => t.request_parts);
  for (const t of traces) delete t.request_parts;
  if (!split.length) return;
  const chain = await db.query<{ id: number; owner_id: number; request_parts: Refs }>(
    `WITH RECURSIVE chain AS (
       SELECT id, owner_id, request_parts FROM llm_traces WHERE id = ANY($1::int[])
       UNION
       SELECT b.id, b.owner_id, b.request_parts FROM chain c
       JOIN llm_traces b ON b.id = (c.request_parts ->> 'base')::int AND b.owner_id = c.owner_id
     ) SELECT id, owner_id, request_parts FROM chain`, [split.map((t) => t.id)]);
  const refsOf = new Map(chain.map((r) => [Number(r.id), r.request_parts]));
  const resolved = new Map<number, Resolved>();
  const resolve = (id: number): Resolved => {
    let sent = resolved.get(id);
    if (sent) return sent;
    const refs = refsOf.get(id);
    if (!refs) throw new Error(`trace ${id}: its base is missing`);
    const base = refs.base === undefined ? null : resolve(refs.base);
    sent = { messages: base ? [...base.messages.slice(0, refs.keep), ...refs.messages] : refs.messages };
    for (const key of SHARED_KEYS) if (refs[key] ?? base?.[key]) sent[key] = refs[key] ?? base![key];
    resolved.set(id, sent);
    return sent;
  };
  const wanted = new Map<number, Set<string>>();
  for (const t of split) {
    const sent = resolve(Number(t.id));
    const hashes = wanted.get(t.owner_id) ?? new Set<string>();
    for (const h of [...sent.messages, ...SHARED_KEYS.map((k) => sent[k])]) if (h) hashes.add(h);
    wanted.set(t.owner_id, hashes);
  }
  const bodies = new Map<string, unknown>();
  for (const [owner, hashes] of wanted) {
    const rows = await db.query<{ hash: string; body: unknown }>(
      'SELECT hash, body FROM llm_trace_parts WHERE owner_id = $1 AND hash = ANY($2::text[])', [owner, [...hashes]]);
    for (const r of rows) bodies.set(`${owner} ${r.hash}`, r.body);
  }
  const body = (owner: number, hash: string) => bodies.get(`${owner} ${hash}`);
  for (const t of split) {
    const sent = resolve(Number(t.id));
    const request: Record<string, unknown> = { ...t.request };
    for (const key of SHARED_KEYS) if (sent[key]) request[key] = body(t.owner_id, sent[key]!);
    request.messages = sent.messages.map((h) => body(t.owner_id, h));
    t.request = request;
  }
}

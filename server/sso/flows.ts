// Sign-ins under way. The browser gets a random value in a cookie (httpOnly, SameSite=Lax: the provider's redirect
// back is a cross-site top-level GET, which a Strict cookie would not come along with; ten minutes; only under
// /api/auth/oidc); the database keeps its hash with the state, nonce and PKCE verifier, and the callback takes the
// row once, so a flow is finished at most once on any instance.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Queryable } from '../db/db.ts';
import { readCookie } from '../auth/index.ts';
import type { Flow } from './relying-party.ts';

export const FLOW_COOKIE = 'aw_oidc_flow';
const FLOW_SECONDS = 600;
const PATH = '/api/auth/oidc';

const hash = (value: string) => createHash('sha256').update(value).digest('base64url');

const SWEEP = 'DELETE FROM oidc_flows WHERE expires_at < now()';
const ADD = `INSERT INTO oidc_flows (id_hash, state, nonce, code_verifier, redirect_uri, expires_at)
  VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`;
const TAKE = `DELETE FROM oidc_flows WHERE id_hash = $1 RETURNING state, nonce, code_verifier AS "codeVerifier",
  redirect_uri AS "redirectUri", expires_at > now() AS live`;

/** Keeps the flow; the cookie value that names it. */
export async function saveFlow(q: Queryable, flow: Flow): Promise<string> {
  const id = randomBytes(32).toString('base64url');
  await q.query(SWEEP);
  await q.query(ADD, [hash(id), flow.state, flow.nonce, flow.codeVerifier, flow.redirectUri, FLOW_SECONDS]);
  return id;
}

/** The flow this browser started, taken (a second callback with the same cookie finds none); null when none lives. */
export async function takeFlow(q: Queryable, req: IncomingMessage): Promise<Flow | null> {
  const id = readCookie(req, FLOW_COOKIE);
  if (!id) return null;
  const [row] = await q.query<Flow & { live: boolean }>(TAKE, [hash(id)]);
  if (!row?.live) return null;
  const { live: _live, ...flow } = row;
  return flow;
}

export function flowCookie(req: IncomingMessage, value: string | null, publicUrl: string | null): string {
  const secure = (req.socket as { encrypted?: boolean }).encrypted || req.headers['x-forwarded-proto'] === 'https' || !!publicUrl?.startsWith('https:');
  return `${FLOW_COOKIE}=${value ?? ''}; Path=${PATH}; HttpOnly; SameSite=Lax; Max-Age=${value ? FLOW_SECONDS : 0}${secure ? '; Secure' : ''}`;
}

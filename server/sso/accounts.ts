// Provider accounts and the users they sign in, in one transaction with the session and the audit trail's events:
// found by (issuer, sub), else an existing user linked by a verified e-mail, else a new user; the allowed domains;
// the admin role following the groups at every sign-in (granted and revoked; never taken from ADMIN_EMAIL).
import type { Queryable } from '../db/db.ts';
import { record } from '../audit/audit.ts';
import { createSession, createUser, findUser, findUserByEmail, type User } from '../auth/index.ts';
import type { OidcConfig } from '../config/index.ts';
import type { SignedInClaims } from './relying-party.ts';
import { SsoRefusal } from './refusal.ts';

const FIND_ACCOUNT = 'SELECT id, user_id FROM oidc_accounts WHERE issuer = $1 AND subject = $2';
const ACCOUNT_OF_USER = 'SELECT subject FROM oidc_accounts WHERE issuer = $1 AND user_id = $2';
const ADD_ACCOUNT = 'INSERT INTO oidc_accounts (issuer, subject, user_id, email) VALUES ($1, $2, $3, $4) RETURNING id';
const TOUCH_ACCOUNT = 'UPDATE oidc_accounts SET email = $2, last_sign_in_at = now() WHERE id = $1';
const SET_ROLE = 'UPDATE users SET role = $2, updated_at = now() WHERE id = $1';
const SET_NAME = "UPDATE users SET name = $2, updated_at = now() WHERE id = $1 AND name = ''";
const ADD_SESSION = 'INSERT INTO oidc_sessions (session_id, account_id, sid, id_token) VALUES ($1, $2, $3, $4)';

export type SsoSignIn = { user: User; session: { id: number; token: string }; roleChanged: boolean };
type Rules = Pick<OidcConfig, 'adminGroups' | 'allowedDomains'> & { breakGlass: string | null };

/** Signs the provider's user in: their account (made or linked), their role, a new session; refused with an SsoRefusal. */
export async function signInAccount(q: Queryable, claims: SignedInClaims, rules: Rules): Promise<SsoSignIn> {
  const { issuer, sub, email } = claims;
  if (rules.allowedDomains.length) {
    const domain = email?.split('@').pop()?.toLowerCase();
    if (!email || !domain || !rules.allowedDomains.includes(domain)) {
      throw new SsoRefusal('domain', `e-mail ${email ?? '(none)'} is outside OIDC_ALLOWED_DOMAINS`);
    }
    // A domain is only as good as the provider's word for the address.
    if (claims.emailVerified === false) throw new SsoRefusal('domain', `e-mail ${email} is not verified by the provider`);
  }
  const detail = { method: 'oidc', issuer, email };
  let [account] = await q.query<{ id: number; user_id: number }>(FIND_ACCOUNT, [issuer, sub]);
  let user: User | null = null;
  let made = false;
  let linked = false;
  if (account) {
    user = await findUser(q, account.user_id);
    await q.query(TOUCH_ACCOUNT, [account.id, email]);
  } else {
    if (!email) throw new SsoRefusal('email', 'the provider gave no e-mail address (ID token and userinfo)');
    const existing = await findUserByEmail(q, email);
    if (existing) {
      // Linked only on the provider's word that the address is theirs; never a second account of the same provider.
      if (claims.emailVerified !== true) throw new SsoRefusal('unverified', `${email} has an account here and the provider did not say email_verified: true`);
      const [other] = await q.query<{ subject: string }>(ACCOUNT_OF_USER, [issuer, existing.id]);
      if (other) throw new SsoRefusal('linked_elsewhere', `${email} is linked to another account of this provider`);
      user = existing;
      linked = true;
    } else {
      user = await createUser(q, email, null, 'user');
      made = true;
    }
    const [row] = await q.query<{ id: number }>(ADD_ACCOUNT, [issuer, sub, user.id, email]);
    account = { id: row!.id, user_id: user.id };
  }
  if (!user) throw new SsoRefusal('linked_elsewhere', 'the account was deleted during the sign-in');
  const actor = { type: 'user' as const, id: user.id, label: user.email };
  const target = { type: 'user' as const, id: user.id };
  if (made) await record(q, { action: 'auth.sign_up', actor, target, detail });
  if (linked) await record(q, { action: 'auth.oidc_link', actor, target, detail: { ...detail, sub } });
  if (claims.name && made) await q.query(SET_NAME, [user.id, claims.name.slice(0, 200)]);
  const roleChanged = await followGroups(q, user, claims.groups, rules);
  const session = await createSession(q, user.id);
  await q.query(ADD_SESSION, [session.id, account.id, claims.sid, claims.idToken]);
  await record(q, { action: 'auth.sign_in', actor, target, detail: { ...detail, session_id: session.id } });
  return { user: roleChanged ? (await findUser(q, user.id))! : user, session, roleChanged };
}

/** With OIDC_ADMIN_GROUPS: admin exactly while a member of one of them (the break-glass ADMIN_EMAIL stays admin). */
async function followGroups(q: Queryable, user: User, groups: string[], rules: Rules): Promise<boolean> {
  if (!rules.adminGroups.length) return false;
  const breakGlass = !!rules.breakGlass && rules.breakGlass.toLowerCase() === user.email.toLowerCase();
  const role = groups.some((g) => rules.adminGroups.includes(g)) || breakGlass ? 'admin' : 'user';
  if (role === user.role) return false;
  await q.query(SET_ROLE, [user.id, role]);
  const detail = { email: user.email, from: user.role, to: role, by: 'OIDC_ADMIN_GROUPS' };
  await record(q, { action: 'user.role_change', actor: { type: 'system' }, target: { type: 'user', id: user.id }, detail });
  return true;
}

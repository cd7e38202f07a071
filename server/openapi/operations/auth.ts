// The auth wing: the built-in sign-in (every call sets or reads the httpOnly refresh cookie, so each must be JSON
// from our own pages) and /api/users: the current user, their password and spend limit, an admin's user search.
import { USER } from '../components.ts';
import { arr, bool, extend, input, int, json, noContent, nullable, obj, oneOfEnum, query, ref, str, time, type WingTable } from '../schema.ts';

const SIGNED_IN = json(ref('AccessToken'), 'Signed in: the access token (the refresh cookie is set beside it)');
const CREDENTIALS = input({ email: str({ format: 'email' }), password: str({ maxLength: 1024 }) }, ['email', 'password']);
// Same-site JSON only (415 for another media type, 403 cross-origin).
const COOKIE_CALL = [403, 415];

export const AUTH: WingTable = {
  tag: 'auth',
  description: 'Signing up, in and out, password resets, and the signed-in user.',
  schemas: {
    AccessToken: obj({ token: str({ description: 'A short-lived JWT for `Authorization: Bearer`' }) }),
    Me: extend(USER, { impersonated_by: nullable(ref('User')) }),
    // The admin's user list says how each account signs in (issue 49).
    ListedUser: extend(USER, { sign_in: arr(oneOfEnum(['password', 'sso']), { description: 'A password, single sign-on, both, or neither' }) }),
  },
  operations: {
    'POST /auth/sign-up': {
      summary: 'Make an account and sign in', body: CREDENTIALS, responses: { 200: SIGNED_IN }, errors: [...COOKIE_CALL, 409, 429],
      description: '403 also when SIGNUP=closed.',
    },
    'POST /auth/sign-in': { summary: 'Sign in with e-mail and password', body: CREDENTIALS, responses: { 200: SIGNED_IN }, errors: [...COOKIE_CALL, 401, 429] },
    'POST /auth/token': {
      summary: 'A new access token from the refresh cookie', body: input({}), responses: { 200: json(ref('AccessToken')) }, errors: [...COOKIE_CALL, 401],
    },
    'POST /auth/sign-out': {
      summary: 'End the session of the refresh cookie', body: input({}), errors: COOKIE_CALL,
      responses: {
        204: noContent('Signed out'),
        200: json(obj({ end_session_url: str({ description: "The provider's end_session_endpoint" }) }), 'Signed out of a single sign-on session: '
          + 'the browser goes on to the provider to end its session there too'),
      },
    },
    'GET /auth/first-start': {
      summary: 'What the sign-in page of a first start says',
      responses: {
        200: json(obj({
          admin_password_file: bool(), password_reset_by_mail: bool(),
          sso_name: nullable(str({ description: 'The single sign-on button\'s text (OIDC_NAME); null: no single sign-on' })),
          password_sign_in: bool({ description: 'false under SIGNIN=oidc-only: only the button (the break-glass admin: /?break-glass)' }),
        })),
      },
    },
    'POST /auth/password-reset-request': {
      summary: 'Mail a link to choose a new password',
      description: 'The same answer whether or not an account has that address. 404: no mail relay here (an admin makes links).',
      body: input({ email: str({ format: 'email' }) }, ['email']),
      responses: { 202: json(obj({ detail: str() }), 'If an account has that address, a link is on its way') },
      errors: [...COOKIE_CALL, 404, 429],
    },
    'POST /auth/password-reset': {
      summary: "Choose a new password with a reset link's token",
      description: 'The link is spent and every session of the user ends.',
      body: input({ token: str(), new_password: str() }, ['token', 'new_password']),
      responses: { 204: noContent('Changed') },
      errors: COOKIE_CALL,
    },
    'GET /users/auth-status': {
      summary: 'Whether the caller is signed in, and as whom',
      responses: {
        200: json(obj({ authenticated: bool(), user: ref('User'), impersonating: bool(), real_user: ref('User') }, ['user', 'impersonating', 'real_user'])),
      },
    },
    'GET /users/me': { summary: 'The current user', responses: { 200: json(ref('Me')) } },
    'PUT /users/me': { summary: 'Change your name', body: input({ name: str({ maxLength: 200 }) }), responses: { 200: json(ref('User')) } },
    'PUT /users/me/password': {
      summary: 'Change your password',
      description: "Every other session of the user ends. 403 for an admin acting as the user.",
      body: input({ current_password: str(), new_password: str() }, ['current_password', 'new_password']),
      responses: { 200: json(obj({ sessions_ended: int({ minimum: 0 }) })) },
    },
    'PATCH /users/me/limit': {
      summary: 'Set your monthly spend limit',
      body: input({ limit_cents: int({ minimum: 0, maximum: 1_000_000_000, description: '0: no limit' }) }, ['limit_cents']),
      responses: { 200: json(ref('User')) },
    },
    'GET /users/': {
      summary: 'Find users (admins)',
      query: { search: query(str(), 'Part of the e-mail or name; none: the first 50') },
      responses: { 200: json({ type: 'array', items: ref('ListedUser'), maxItems: 50 }) },
    },
    'POST /users/:id/password-reset': {
      summary: 'A one-time link for a user to choose a new password (admins)',
      responses: { 201: json(obj({ path: str({ description: '/reset-password#<token>' }), expires_at: time() })) },
    },
  },
};

// The tokens wing (issue 46): a user's personal API tokens, managed from a signed-in session only (a request made
// with an API token gets 403 here); admins list and revoke every user's.
import { extend, id, input, int, json, noContent, nullable, obj, oneOfEnum, ref, str, time, arr, type WingTable } from '../schema.ts';

const TOKEN = obj({
  id: id(), name: str(), scope: oneOfEnum(['read', 'write', 'admin']), prefix: str({ description: "The token's first characters, to recognise it by" }),
  created_at: time(), expires_at: nullable(time({ description: 'null: never' })), last_used_at: nullable(time()), revoked_at: nullable(time()),
});

export const TOKENS: WingTable = {
  tag: 'tokens',
  description: 'Personal API tokens: `Authorization: Bearer aw_…` within their scope.',
  schemas: {
    ApiToken: TOKEN,
    NewApiToken: extend(TOKEN, { token: str({ pattern: '^aw_[A-Za-z0-9_-]{43}$', description: 'The whole token, shown only here' }) }),
    UserApiToken: extend(TOKEN, { user_id: id(), user_email: str() }),
  },
  operations: {
    'GET /tokens': { summary: "The caller's tokens, newest first", security: 'session', responses: { 200: json(arr(ref('ApiToken'))) } },
    'POST /tokens': {
      summary: 'Make a token (not while impersonating)',
      security: 'session',
      body: input({
        name: str({ minLength: 1, maxLength: 100 }), scope: oneOfEnum(['read', 'write', 'admin'], { description: 'admin: admins only' }),
        expires_in_days: nullable(int({ minimum: 1, maximum: 365, description: 'null or absent: never expires' })),
      }, ['name', 'scope']),
      responses: { 201: json(ref('NewApiToken'), 'Made; the secret is in this answer only') },
    },
    'DELETE /tokens/:id': { summary: 'Revoke a token (admins: anyone\'s)', security: 'session', responses: { 204: noContent('Revoked') } },
    'GET /admin/tokens': { summary: "Every user's tokens (admins)", security: 'session', responses: { 200: json(arr(ref('UserApiToken'))) } },
  },
};

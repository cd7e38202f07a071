// Personal API tokens as the SPA tests meet them: four of the user's (active, never-expiring, expired, revoked), two
// of other users for the admin's list, and a fake API that lists them and remembers a revoke.
import type { Me } from '../../../src/lib/api.ts';
import type { ApiToken, UserApiToken } from '../../../src/lib/types.ts';
import { FakeApi, USER } from './screen-harness.tsx';

const DAY = 86_400_000;
const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();

export const CI: ApiToken = {
  id: 4, name: 'CI', scope: 'read', prefix: 'aw_Xy3k9Q', created_at: at(-2), expires_at: at(28), last_used_at: at(-1), revoked_at: null,
};
export const BACKUP: ApiToken = { ...CI, id: 3, name: 'Backup', scope: 'write', prefix: 'aw_Bk7pL2', expires_at: null, last_used_at: null };
export const DEPLOY: ApiToken = { ...CI, id: 2, name: 'Deploy', scope: 'write', prefix: 'aw_Dp0mZ1', created_at: at(-40), expires_at: at(-10) };
export const OLD: ApiToken = { ...CI, id: 1, name: 'Old script', prefix: 'aw_Ol4dQ8', created_at: at(-60), revoked_at: at(-5) };

export const OTHERS: UserApiToken[] = [
  { ...CI, id: 9, name: 'Sync', prefix: 'aw_Sy9nC0', user_id: 5, user_email: 'bea@example.test' },
  { ...OLD, id: 8, name: 'Gone', prefix: 'aw_Go8nE1', user_id: 6, user_email: 'cy@example.test' },
];

/** The user's tokens at GET /api/tokens (newest first); DELETE /api/tokens/:id stamps revoked_at, as the server does. */
export function tokenApi(me: Me = USER, tokens: ApiToken[] = [CI, BACKUP, DEPLOY, OLD]) {
  const mine = tokens.map((t) => ({ ...t }));
  const api = new FakeApi(me).on('GET /api/tokens', () => mine);
  for (const token of mine) {
    api.on(`DELETE /api/tokens/${token.id}`, () => {
      token.revoked_at ??= new Date().toISOString();
      return new Response(null, { status: 204 });
    });
  }
  return api;
}

// Revoke, shared by the user's list and the admin's: asks first (software using the token stops at once), then
// refetches both lists, since an admin's own token is in both and the server stamps revoked_at.
import { useState } from 'react';
import { detailOr } from '../../../lib/http.ts';
import { ADMIN_TOKENS_PATH, revokeToken, TOKENS_PATH } from '../../../lib/tokens-api.ts';
import type { ApiToken } from '../../../lib/types.ts';
import { mutate } from '../../../lib/use-resource.ts';

export const revokeQuestion = (name: string) => `Revoke ${name}? Software using it stops working at once.`;

export function useRevoke() {
  const [revokingId, setRevokingId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const revoke = async (token: ApiToken) => {
    if (!window.confirm(revokeQuestion(token.name))) return;
    setRevokingId(token.id);
    setError(null);
    try {
      await revokeToken(token.id);
      await Promise.all([mutate(TOKENS_PATH), mutate(ADMIN_TOKENS_PATH)]);
    } catch (err) {
      setError(detailOr(err, 'Failed to revoke the token'));
    } finally {
      setRevokingId(null);
    }
  };
  return { revoke, revokingId, error };
}

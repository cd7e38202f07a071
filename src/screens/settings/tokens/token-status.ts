// A token's state as the lists show it. Revoked wins over Expired: a revoked token stays refused whatever its date,
// and the server refuses a token from the instant of its expires_at (`expires_at > now()` is still valid).
import type { ApiToken } from '../../../lib/types.ts';

export type TokenStatus = 'Active' | 'Expired' | 'Revoked';

export function tokenStatus(token: Pick<ApiToken, 'expires_at' | 'revoked_at'>, now = Date.now()): TokenStatus {
  if (token.revoked_at) return 'Revoked';
  if (token.expires_at && Date.parse(token.expires_at) <= now) return 'Expired';
  return 'Active';
}

export const SCOPE_LABELS: Record<ApiToken['scope'], string> = { read: 'Read', write: 'Write', admin: 'Admin' };

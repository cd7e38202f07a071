// Typed calls for personal API tokens: the user's own (list, create, revoke) and, for admins, everyone's.
// The secret comes back once, in createToken's answer; nothing here keeps it. The paths double as useResource keys.
import { request } from './http.ts';
import type { ApiTokenScope, NewApiToken } from './types.ts';

/** What the New token form sends; expires_in_days is 1 to 365, or null for never. */
export type ApiTokenInput = { name: string; scope: ApiTokenScope; expires_in_days: number | null };

export const TOKENS_PATH = '/tokens';
export const ADMIN_TOKENS_PATH = '/admin/tokens';
export const tokenPath = (id: number) => `${TOKENS_PATH}/${id}`;

export const createToken = (input: ApiTokenInput) => request<NewApiToken>(TOKENS_PATH, { method: 'POST', body: input });
/** Revokes at once; the owner's or, for an admin, anyone's. */
export const revokeToken = (id: number) => request<null>(tokenPath(id), { method: 'DELETE' });

// A help request's one-time link (issue 47): /help/<token> in its e-mail and its notification. Using it marks it used
// and says which agent's desktop to open; an unknown, used, expired or someone else's link is one and the same 404.
import { request } from './http.ts';

export type HelpLinkTarget = { agent_id: number; thread_id: number };

export const redeemHelpLink = (token: string) =>
  request<HelpLinkTarget>(`/help-links/${encodeURIComponent(token)}/use`, { method: 'POST' });

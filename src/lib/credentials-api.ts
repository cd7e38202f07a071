// Typed calls for the credential vault: the user's credentials, their grants and fill history, and the
// answer to an agent's request to use one. The server never sends a value back, so nothing here holds one
// longer than the request that carries it. The paths double as useResource keys.
import { request } from './http.ts';
import type { Credential } from './types.ts';

/** What a form sends. On PATCH a key left out stays as it is; '' for password or totp removes it. */
export type CredentialInput = {
  name: string;
  username: string;
  password: string;
  totp: string;
  targets: string[];
  notes: string;
};

export type ApprovalState = 'approved' | 'denied' | 'expired';

export const CREDENTIALS_PATH = '/credentials';
export const credentialPath = (id: number) => `${CREDENTIALS_PATH}/${id}`;
export const fillsPath = (id: number) => `${credentialPath(id)}/fills`;
/** The screen the agent saw when it asked; an image behind the Bearer token (useScreenshot fetches it). */
export const approvalScreenshotUrl = (id: number) => `/api/credential_approvals/${id}/screenshot`;

export const createCredential = (input: CredentialInput) =>
  request<Credential>(CREDENTIALS_PATH, { method: 'POST', body: input });
export const updateCredential = (id: number, changes: Partial<CredentialInput>) =>
  request<Credential>(credentialPath(id), { method: 'PATCH', body: changes });
export const deleteCredential = (id: number) => request<null>(credentialPath(id), { method: 'DELETE' });
export const putGrants = (id: number, agentIds: number[], askEachTime: boolean) =>
  request<Credential>(`${credentialPath(id)}/grants`, { method: 'PUT', body: { agent_ids: agentIds, ask_each_time: askEachTime } });

export const answerApproval = (id: number, approve: boolean) =>
  request<{ state: ApprovalState }>(`/credential_approvals/${id}`, { method: 'POST', body: { approve } });

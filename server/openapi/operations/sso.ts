// The single sign-on wing (issue 49): the browser's round trip through the OpenID provider (top-level navigations
// answered with redirects) and the provider's back-channel logout.
import { json, obj, bool, str, type Answer, type WingTable } from '../schema.ts';

const REDIRECT = (description: string): Answer => ({
  description, headers: { Location: { schema: { type: 'string' }, description: 'Where the browser goes next' } },
});

export const SSO: WingTable = {
  tag: 'sso',
  description: 'Single sign-on with an OpenID Connect provider (OIDC_ISSUER): the sign-in round trip and the provider\'s logout.',
  operations: {
    'GET /auth/oidc/start': {
      summary: 'Go to the provider to sign in (the sign-in page\'s button)',
      description: 'Keeps a new flow (state, nonce, PKCE verifier) behind a SameSite=Lax cookie and redirects to the provider; '
        + 'without OIDC_ISSUER, or when the provider cannot be reached, back to `/?sign_in_error=<code>`.',
      responses: { 302: REDIRECT('To the provider\'s authorization endpoint, or back to the sign-in page with a code') },
      errors: [429],
    },
    'GET /auth/oidc/callback': {
      summary: 'The provider sends the browser back here (redirect URI)',
      description: 'Takes the flow once, exchanges the code and checks the ID token, finds, links or makes the account, sets the '
        + 'refresh cookie and redirects to `/?signed_in=1`; a refusal redirects to `/?sign_in_error=<code>`.',
      responses: { 302: REDIRECT('To the workspace, signed in, or to the sign-in page with a code') },
    },
    'POST /auth/oidc/backchannel-logout': {
      summary: 'The provider\'s back-channel logout: every session of the logout token\'s sub (or sid) ends',
      body: { content: { 'application/x-www-form-urlencoded': { schema: obj({ logout_token: str({ description: 'A signed JWT' }) }) } }, required: true },
      responses: { 200: json(obj({ ok: bool() }), 'Done') },
      errors: [400, 404],
    },
  },
};

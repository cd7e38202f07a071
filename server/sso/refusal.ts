// Why a single sign-on did not sign anyone in. The browser is sent back to the sign-in page with the code alone
// (`/?sign_in_error=<code>`), which the page turns into a sentence (src/screens/sign-in/sign-in-errors.ts); the
// reason, for the log and the audit trail, never reaches the page.
export const SSO_ERRORS = [
  // The provider's own answers (OpenID Connect Core 3.1.2.6), passed on by name.
  'access_denied', 'login_required', 'interaction_required', 'consent_required', 'account_selection_required', 'temporarily_unavailable',
  // Any other error the provider answered with.
  'provider',
  // No flow of this browser's, an expired one, or another state than the one sent.
  'state',
  // The token endpoint or the ID token was refused (signature, issuer, audience, nonce, times).
  'id_token',
  // Discovery, the token endpoint or userinfo could not be reached.
  'unreachable',
  // The accounts' rules: the e-mail's domain, a link without a verified e-mail, no e-mail at all.
  'domain', 'unverified', 'linked_elsewhere', 'email',
  // OIDC_ISSUER is not set.
  'not_configured',
  // Anything else (logged): try again.
  'failed',
] as const;

export type SsoError = (typeof SSO_ERRORS)[number];

export class SsoRefusal extends Error {
  constructor(readonly code: SsoError, readonly reason: string) {
    super(`${code}: ${reason}`);
    this.name = 'SsoRefusal';
  }
}

/** The provider's error parameter as one of ours: its own name when the page knows it, else `provider`. */
export function providerError(error: string): SsoError {
  return (SSO_ERRORS as readonly string[]).slice(0, 6).includes(error) ? (error as SsoError) : 'provider';
}

// What the sign-in page says when single sign-on comes back without a session (`/?sign_in_error=<code>`, set by
// server/sso/refusal.ts): one sentence per code, never the provider's words or the query string itself.
const MESSAGES: Record<string, string> = {
  access_denied: 'The sign-in was cancelled at your identity provider, or it refused access to this workspace.',
  login_required: 'Your identity provider needs you to sign in there first. Try again.',
  interaction_required: 'Your identity provider needs you to do something there first. Try again.',
  consent_required: 'Your identity provider needs your consent for this workspace. Try again and allow it.',
  account_selection_required: 'Your identity provider needs you to choose an account. Try again.',
  temporarily_unavailable: 'Your identity provider is busy right now. Try again in a moment.',
  provider: 'Your identity provider reported an error. Try again, or ask an administrator.',
  state: 'That sign-in had expired or was started in another tab or browser. Try again.',
  id_token: 'The answer from your identity provider could not be verified, so you were not signed in. Ask an administrator.',
  unreachable: 'Your identity provider cannot be reached right now. Try again later.',
  domain: 'Your e-mail address is not in a domain that may sign in to this workspace.',
  unverified: 'An account with your e-mail address already exists here, and your identity provider did not confirm the address, '
    + 'so the two were not linked. Ask an administrator.',
  linked_elsewhere: 'An account with your e-mail address is already linked to another identity at your provider. Ask an administrator.',
  email: 'Your identity provider did not share an e-mail address, which this workspace needs. Ask an administrator.',
  not_configured: 'Single sign-on is not set up on this server.',
  failed: 'The sign-in failed. Try again.',
};

/** The sentence for a code; any other value reads as a failed sign-in. */
export function signInErrorMessage(code: string): string {
  return Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : MESSAGES.failed;
}

/** The code the address carries, taken off the address (a reload does not say it again); null without one. */
export function takeSignInError(): string | null {
  const url = new URL(window.location.href);
  const code = url.searchParams.get('sign_in_error');
  if (code === null) return null;
  url.searchParams.delete('sign_in_error');
  window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  return code;
}

/** `/?break-glass`: the password form for the break-glass admin while the server takes single sign-on only. */
export function breakGlassAsked(): boolean {
  return new URL(window.location.href).searchParams.has('break-glass');
}

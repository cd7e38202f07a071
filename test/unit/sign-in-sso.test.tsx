// The sign-in page with single sign-on (issue 49): the provider's button above the form, only the button under
// SIGNIN=oidc-only (the form again at /?break-glass), and a sign-on that came back refused said as a sentence, its
// code taken off the address. Every code the server sends (server/sso/refusal.ts) has a sentence; nothing else does.
import { cleanup, FakeApi, renderScreen, text, USER } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SSO_ERRORS } from '../../server/sso/refusal.ts';
import { signInErrorMessage } from '../../src/screens/sign-in/sign-in-errors.ts';
import { SignInScreen } from '../../src/screens/sign-in/sign-in-screen.tsx';

const page = suite('sign-in page: single sign-on');
page.after.each(async () => {
  window.history.replaceState(null, '', '/');
  await cleanup();
});

function server(sso: { sso_name: string | null; password_sign_in: boolean }): FakeApi {
  return new FakeApi(USER).on('GET /api/auth/first-start', () => ({ admin_password_file: false, password_reset_by_mail: false, ...sso }));
}
const button = () => document.querySelector<HTMLAnchorElement>('a.sign-in-sso-button');
const passwordField = () => document.querySelector('input[type="password"]');

page('the provider\'s button comes first, the password form below it', async () => {
  await renderScreen(server({ sso_name: 'Sign in with Okta', password_sign_in: true }), <SignInScreen />);
  assert.is(button()?.textContent, 'Sign in with Okta');
  assert.is(button()?.getAttribute('href'), '/api/auth/oidc/start');
  assert.ok(passwordField());
  assert.ok(button()!.compareDocumentPosition(passwordField()!) & Node.DOCUMENT_POSITION_FOLLOWING, 'the button is above the form');
  assert.match(text(), 'Create an account');
});

page('SIGNIN=oidc-only: only the button; /?break-glass shows the form for the admin', async () => {
  await renderScreen(server({ sso_name: 'Sign in with Okta', password_sign_in: false }), <SignInScreen />);
  assert.ok(button());
  assert.is(passwordField(), null);
  assert.not.match(text(), 'Create an account');
  await cleanup();
  window.history.replaceState(null, '', '/?break-glass');
  await renderScreen(server({ sso_name: 'Sign in with Okta', password_sign_in: false }), <SignInScreen />);
  assert.ok(button());
  assert.ok(passwordField());
  assert.not.match(text(), 'Create an account');
});

page('a refused sign-on is said in a sentence, and its code leaves the address', async () => {
  window.history.replaceState(null, '', '/?sign_in_error=domain');
  await renderScreen(server({ sso_name: 'Sign in with Okta', password_sign_in: true }), <SignInScreen />);
  assert.is(document.querySelector('[role="alert"]')?.textContent, signInErrorMessage('domain'));
  assert.is(window.location.search, '');
});

page.run();

const codes = suite('sign-in page: the codes');

codes('every code the server sends has a sentence of its own', () => {
  const failed = signInErrorMessage('failed');
  for (const code of SSO_ERRORS) {
    const message = signInErrorMessage(code);
    assert.ok(code === 'failed' || message !== failed, `${code} has its own sentence`);
    assert.match(message, /^[A-Z].+\.$/, `${code}: a sentence, not the code`);
  }
});

codes('any other value reads as a failed sign-in', () => {
  for (const code of ['', 'constructor', '__proto__', '<script>alert(1)</script>', 'error_description=stack']) {
    assert.is(signInErrorMessage(code), signInErrorMessage('failed'), code);
  }
});

codes.run();

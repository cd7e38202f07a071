// The single sign-on wing's door (issue 49): OpenID Connect sign-in, back-channel and RP-initiated logout.
export { registerSsoRoutes } from './routes.ts';
export { CALLBACK_PATH, startSso, Sso } from './sso.ts';
export { SSO_ERRORS, type SsoError } from './refusal.ts';

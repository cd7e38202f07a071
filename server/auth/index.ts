// The auth wing's door: what the rest of the server uses of it.
export { Auth } from './auth.ts';
export { ensureAdmin } from './bootstrap.ts';
export { registerAuthRoutes } from './routes.ts';
export { sessionAlive } from './sessions.ts';
export { TokenIssuer, signingKeyLabel } from './tokens.ts';
export { registerUserRoutes } from './user-routes.ts';
export { findUser, validEmail } from './users.ts';
export type { User } from './users.ts';

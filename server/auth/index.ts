// The auth wing's door: what the rest of the server uses of it.
export { Auth } from './auth.ts';
export { ensureAdmin } from './bootstrap.ts';
export { address, registerAuthRoutes } from './routes.ts';
export { createSession, readCookie, sessionAlive, sessionCookie } from './sessions.ts';
export { TokenIssuer, signingKeyLabel } from './tokens.ts';
export { registerUserRoutes } from './user-routes.ts';
export { createUser, findUser, findUserByEmail, validEmail } from './users.ts';
export type { User } from './users.ts';

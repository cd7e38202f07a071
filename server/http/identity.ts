// Who is asking, as a route sees them: the signed-in user and, while an admin impersonates someone, the user acted
// as. The auth wing finds them (auth/auth.ts identify); http/ only carries them to the handlers.
export type Role = 'admin' | 'user';

export type User = {
  id: number;
  email: string;
  role: Role;
  name: string;
  monthly_spend_limit_cents: number;
  created_at: Date;
};

/** What a personal API token may do (issue 46): read (GET only), write (all but admin routes), admin (an admin's, all). */
export type TokenScope = 'read' | 'write' | 'admin';

/** `scope`: set when the caller came with a personal API token, which acts within it (a session has none). */
export type Identity = { user: User; realUser: User; sessionId: number | null; expiresAt: number; scope?: TokenScope };

/** Finds who is asking, or throws an HttpError (401) when no valid token came; sockets may carry it in the query. */
export type Identify = (req: import('node:http').IncomingMessage, options?: { allowQueryToken?: boolean }) => Promise<Identity>;

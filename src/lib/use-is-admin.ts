// Whether the signed-in person holds admin tools. An admin keeps them while acting as another
// user (spec §6), e.g. to create an agent for that user.
import type { Me } from './api.ts';
import { useAuth } from './auth.tsx';

export function isAdmin(me: Me): boolean {
  return me.role === 'admin' || me.impersonated_by?.role === 'admin';
}

/** False while signed out or still loading. */
export function useIsAdmin(): boolean {
  const auth = useAuth();
  return auth.status === 'signed-in' && isAdmin(auth.me);
}

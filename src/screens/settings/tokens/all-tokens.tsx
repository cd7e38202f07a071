// For admins: every user's tokens, newest first, each active one revocable. Rendered only for an admin; the
// server refuses the list to anyone else (403).
import { useId } from 'react';
import { ADMIN_TOKENS_PATH } from '../../../lib/tokens-api.ts';
import type { ApiToken, UserApiToken } from '../../../lib/types.ts';
import { useResource } from '../../../lib/use-resource.ts';
import { TokenTable } from './token-table.tsx';

type AllTokensProps = { onRevoke: (token: ApiToken) => void; revokingId: number | null };

export function AllTokens({ onRevoke, revokingId }: AllTokensProps) {
  const headingId = useId();
  const { data, error } = useResource<UserApiToken[]>(ADMIN_TOKENS_PATH);
  return (
    <section className="tokens-all" aria-labelledby={headingId}>
      <h3 id={headingId} className="tokens-all-heading">All tokens</h3>
      <p className="muted">Every user's tokens. Revoking one stops the software using it at once.</p>
      <TokenTable tokens={data} error={error} label="All tokens" loadingText="Loading all tokens..." withUser onRevoke={onRevoke}
        revokingId={revokingId} />
    </section>
  );
}

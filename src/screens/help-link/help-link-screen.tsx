// A help request's one-time link (/help/<token>, issue 47), reached signed in (app.tsx shows the sign-in page first
// and then this same address): uses the link, then opens the agent's desktop with control taken (`?control=1`), in
// place of this page in the history. A link that does not work says why, with the way back to the agents.
import { useEffect, useState } from 'react';
import { redeemHelpLink, type HelpLinkTarget } from '../../lib/help-link-api.ts';
import { normalizeError, type ApiError } from '../../lib/http.ts';
import { Link, navigate } from '../../lib/router.ts';
import { useTitle } from '../../lib/title.tsx';
import { Spinner } from '../../ui/spinner.tsx';

// A link works once: one request per token for the page's life, however often the screen mounts (StrictMode runs
// effects twice in development; a second request would be refused as used and show an error over the desktop).
const used = new Map<string, Promise<HelpLinkTarget>>();
const redeemOnce = (token: string) => {
  let pending = used.get(token);
  if (!pending) used.set(token, (pending = redeemHelpLink(token)));
  return pending;
};

export default function HelpLinkScreen({ token }: { token: string }) {
  useTitle('Help request');
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    let live = true;
    redeemOnce(token).then(
      (target) => live && navigate(`/agent/${target.agent_id}?control=1`, { replace: true }),
      (err: unknown) => live && setError(normalizeError(err)),
    );
    return () => void (live = false);
  }, [token]);

  if (error) {
    return (
      <div className="page-message help-link">
        <p className="error-text" role="alert">{error.detail}</p>
        <Link href="/">Go to your agents</Link>
      </div>
    );
  }
  return (
    <div className="page-message help-link">
      <Spinner label="Opening the agent's desktop" />
      <p>Opening the agent&apos;s desktop...</p>
    </div>
  );
}

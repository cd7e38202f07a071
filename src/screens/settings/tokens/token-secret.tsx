// The new token, shown once: the server keeps only its hash, so this read-only field is the one chance to copy it.
// The field is selected on arrival, so Ctrl+C works even where the clipboard API does not.
import { useEffect, useId, useRef, useState } from 'react';

export const SHOWN_ONCE = 'Copy it now: it will not be shown again.';

export function TokenSecret({ token }: { token: string }) {
  const id = useId();
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied(true);
    } catch {
      // No clipboard permission (an insecure origin, an old browser): the token stays selected to copy by hand.
      field.current?.select();
      setCopied(false);
    }
  };

  return (
    <div className="token-secret">
      <label htmlFor={id} className="token-secret-label">Your new token</label>
      <div className="token-secret-row">
        <input ref={field} id={id} type="text" readOnly value={token} className="token-secret-value" spellCheck={false}
          autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button" onClick={() => void copy()}>Copy</button>
      </div>
      <p className="token-secret-warning">{SHOWN_ONCE}</p>
      <p className="muted token-copied" role="status">
        {copied === true ? 'Copied' : copied === false ? 'Copy it with Ctrl+C (the token is selected).' : ''}
      </p>
    </div>
  );
}

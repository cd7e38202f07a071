// A secret the server shows once (an API token, a webhook's signing secret): after this it keeps only a hash or names
// it by its prefix, so this read-only field is the one chance to copy it. Selected on arrival, so Ctrl+C works even
// where the clipboard API does not.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

export const SHOWN_ONCE = 'Copy it now: it will not be shown again.';

/** `label`: the field's name; `noun`: what the copy hint calls it ("token"); `children`: a hint under the warning. */
export function SecretOnce({ value, label, noun, children }: { value: string; label: string; noun: string; children?: ReactNode }) {
  const id = useId();
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // No clipboard permission (an insecure origin, an old browser): the value stays selected to copy by hand.
      field.current?.select();
      setCopied(false);
    }
  };

  return (
    <div className="secret-once">
      <label htmlFor={id} className="secret-once-label">{label}</label>
      <div className="secret-once-row">
        <input ref={field} id={id} type="text" readOnly value={value} className="secret-once-value" spellCheck={false}
          autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button" onClick={() => void copy()}>Copy</button>
      </div>
      <p className="secret-once-warning">{SHOWN_ONCE}</p>
      {children}
      <p className="muted secret-once-copied" role="status">
        {copied === true ? 'Copied' : copied === false ? `Copy it with Ctrl+C (the ${noun} is selected).` : ''}
      </p>
    </div>
  );
}

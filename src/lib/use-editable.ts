// The load-then-edit state of a form modal: what was loaded (and is now being edited), the load's
// failure, and a retry. A newer load (another id, a retry) wins: a late answer of an older one is dropped.
import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import { detailOr } from './http.ts';

export type Editable<T> = {
  /** null while loading and after a failed load. */
  value: T | null;
  setValue: Dispatch<SetStateAction<T | null>>;
  /** After a failed load the server's detail ('' when it gave none: the modal shows its own text), else null. */
  error: string | null;
  retry: () => void;
};

/** Loads with `load` when `key` changes (and on retry); `load` is read at that moment only. */
export function useEditable<T>(load: () => Promise<T>, key: string | number): Editable<T> {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let cancelled = false;
    setValue(null);
    setError(null);
    load().then(
      (loaded) => !cancelled && setValue(loaded),
      (err) => !cancelled && setError(detailOr(err, '')),
    );
    return () => {
      cancelled = true;
    };
    // `load` is a new function every render; `key` says when a new load is wanted.
  }, [key, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { value, setValue, error, retry };
}

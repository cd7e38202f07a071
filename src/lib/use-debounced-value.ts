// The value, settled: follows `value` only once it has stopped changing for `ms` (user search uses 300 ms).
// Leaves out leading-edge and max-wait options.

import { useEffect, useState } from 'react';

export function useDebouncedValue<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(() => value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

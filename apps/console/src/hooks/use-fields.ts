import { useCallback, useState } from 'react';

/** Form values with one setter per field; the console's forms are small and server-validated. */
export function useFields<T extends object>(initial: T) {
  const [values, setValues] = useState<T>(initial);
  const setField = useCallback(<K extends keyof T>(key: K, value: T[K]) => {
    setValues((previous) => ({ ...previous, [key]: value }));
  }, []);
  const reset = useCallback((next: T) => setValues(next), []);
  return { values, setField, reset };
}

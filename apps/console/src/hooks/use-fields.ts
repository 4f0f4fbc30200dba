import { useCallback, useRef, useState } from 'react';

/**
 * Form values with one setter per field; the console's forms are small and server-validated.
 * `onFieldChange` hears of every field set (a form clears that field's error message with it).
 */
export function useFields<T extends object>(initial: T, onFieldChange?: (field: keyof T & string) => void) {
  const [values, setValues] = useState<T>(initial);
  const changed = useRef(onFieldChange);
  changed.current = onFieldChange;
  const setField = useCallback(<K extends keyof T>(key: K, value: T[K]) => {
    setValues((previous) => ({ ...previous, [key]: value }));
    changed.current?.(key as keyof T & string);
  }, []);
  const reset = useCallback((next: T) => setValues(next), []);
  return { values, setField, reset };
}

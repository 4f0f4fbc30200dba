/**
 * A function of a string memoized for its last `size` distinct arguments (least recently used
 * forgotten first): for pure work repeated per request on few distinct inputs, such as parsing a
 * peer's certificate. Only for results that are not secret.
 */
export function memoized<T>(compute: (key: string) => T, size = 64): (key: string) => T {
  const results = new Map<string, T>();
  return (key) => {
    if (results.has(key)) {
      const value = results.get(key)!;
      results.delete(key);
      results.set(key, value);
      return value;
    }
    const value = compute(key);
    results.set(key, value);
    if (results.size > size) results.delete(results.keys().next().value!);
    return value;
  };
}

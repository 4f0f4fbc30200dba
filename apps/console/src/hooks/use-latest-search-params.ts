import { useRef } from 'react';
import { useSearchParams, type NavigateOptions } from 'react-router';

/**
 * The address's query string, and a change of it that builds on the last change asked for.
 * React Router's own setter builds on the query string rendered, and a navigation renders only
 * once the router has run its loaders: two changes made before then (a filter cleared and another
 * set at once) kept only the second, which put the first filter back. A change is a new entry of
 * the history unless `options` say `replace`; one that leaves the query string as it is does nothing.
 */
export function useLatestSearchParams(): [
  URLSearchParams,
  (next: (latest: URLSearchParams) => URLSearchParams, options?: NavigateOptions) => void,
] {
  const [params, setParams] = useSearchParams();
  const rendered = useRef('');
  rendered.current = params.toString();
  // the query strings asked for and not yet rendered, after the one rendered when they were asked
  const asked = useRef<{ base: string; pending: string[] }>({ base: '', pending: [] });
  const change = (next: (latest: URLSearchParams) => URLSearchParams, options?: NavigateOptions) => {
    const now = rendered.current;
    const state = asked.current;
    const done = state.pending.indexOf(now);
    if (done !== -1) {
      // rendered one asked for: those before it are done too
      state.pending = state.pending.slice(done + 1);
      state.base = now;
    } else if (now !== state.base) {
      // another navigation altogether (back, a link): the next change builds on it
      state.pending = [];
      state.base = now;
    }
    const latest = state.pending.at(-1) ?? now;
    const value = next(new URLSearchParams(latest));
    // a change to the query string it builds on asks for nothing (no entry of the history twice)
    if (value.toString() === latest) return;
    state.pending.push(value.toString());
    setParams(value, options);
  };
  return [params, change];
}

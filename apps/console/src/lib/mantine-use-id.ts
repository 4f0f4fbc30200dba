import { useId as useReactId } from 'react';

/**
 * Mantine's `useId` (@mantine/hooks) without its swap: Mantine's own starts with React's id and
 * replaces it with a random one in a layout effect after mount, so every Mantine input rendered
 * twice, the second time synchronously inside the commit that first showed it (over half of the
 * login form's first commit). React's `useId` is already unique in the page and stable across
 * renders, which is what the swap stood in for. `vite.config.ts` resolves Mantine's module here:
 * `mantineUsesReactId` for the build and the console's tests, `mantineUsesReactIdInDev` for the dev
 * server's prebundle (`npm run dev`).
 */
export function useId(staticId?: string): string {
  const reactId = useReactId();
  return typeof staticId === 'string' ? staticId : `mantine-${reactId.replace(/:/g, '')}`;
}

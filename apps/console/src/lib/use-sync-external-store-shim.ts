// `use-sync-external-store/shim` for React 18 and later, which have the hook built in: react-i18next
// imports the shim, whose own module (for React 16 and 17) would ship with the first screen.
// vite.config.ts resolves the shim here.
export { useSyncExternalStore } from 'react';

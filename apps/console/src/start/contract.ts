// A step of the page's start (src/boot.ts): zod and the contract's schemas and permission rows
// the app reads at start, evaluated in a task of their own before the app's chunk. The app
// imports the same modules; the build places them in a chunk both share, evaluated once.
export { accessOf, canCall, isRouteOpen, ZErrorResponse, ZMultipleErrorResponse, ZSessionResponse } from '@manifold/contract';

import './app/styles/first-screen';
import './app/global.css';
import { nextTask } from './lib/next-task';

// The page's entry: the stylesheets of the screens before sign-in (the signed-in layout brings the
// rest), then the app (`main.tsx`) after the first frame, so the first paint (index.html's logo
// frame) waits neither for fetching nor for evaluating the app's code. (Preloading the app from
// index.html measured worse: Lighthouse counts a fetch started before the first paint against it.)
// The app is evaluated in steps, each in a task of its own, so that no single task holds the main
// thread for long: React, then zod with the contract's schemas, then the other libraries, then the
// rest (`src/start/`). The build fetches all the steps' chunks at the first step
// (vite.config.ts `entryPreloads`).
const steps = [
  () => import('react-dom/client'),
  () => import('./start/contract'),
  () => import('./start/libraries'),
  () => import('./main'),
];

let started = false;
async function start(): Promise<void> {
  if (started) return;
  started = true;
  for (const step of steps) {
    await step();
    await nextTask();
  }
}
requestAnimationFrame(() => setTimeout(() => void start(), 0));
// a hidden tab runs no animation frames
setTimeout(() => void start(), 100);

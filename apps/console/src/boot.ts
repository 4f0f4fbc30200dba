import './app/styles/first-screen';
import './app/global.css';

// The page's entry: the stylesheets of the screens before sign-in (the signed-in layout brings the
// rest), then the app (`main.tsx`) after the first frame, so the
// first paint (index.html's logo frame) waits neither for fetching nor for evaluating the app's
// code. (Preloading the app from index.html measured worse: Lighthouse counts a fetch started
// before the first paint against it.)
let started = false;
function start(): void {
  if (started) return;
  started = true;
  void import('./main');
}
requestAnimationFrame(() => setTimeout(start, 0));
// a hidden tab runs no animation frames
setTimeout(start, 100);

import '@mantine/nprogress/styles.css';
import { NavigationProgress, nprogress } from '@mantine/nprogress';
import { useEffect, useRef } from 'react';
import type { Navigation } from 'react-router';

/** The green progress bar, run while the router loads a page. */
export function NavigationProgressBar({ state }: { state: Navigation['state'] }) {
  const started = useRef(false);
  useEffect(() => {
    if (state !== 'idle') {
      started.current = true;
      nprogress.start();
    } else if (started.current) {
      started.current = false;
      nprogress.complete();
    }
  }, [state]);
  return <NavigationProgress color="green" aria-hidden />;
}

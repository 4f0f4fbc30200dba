import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Outlet, useNavigate, useNavigation } from 'react-router';
import { loginPath } from '../../lib/login-redirect';
import { endSession, listenForLogout } from '../../lib/session';
import { useStore } from '../../lib/store';
import { alerts } from '../../lib/alerts';
import { uploadTray } from '../../lib/upload-tray';

/** The tray's code loads the first time something is uploaded, keeping it out of /login. */
const UploadTrayPanel = lazy(async () => ({ default: (await import('./upload-tray-panel')).UploadTrayPanel }));

/** The alerts' code (notification, transitions) loads with the first alert, keeping it out of /login. */
const AlertViewport = lazy(async () => ({ default: (await import('./alert-viewport')).AlertViewport }));

/** The progress bar's code loads with the first navigation after the start, keeping it out of /login. */
const NavigationProgressBar = lazy(async () => ({ default: (await import('./navigation-progress')).NavigationProgressBar }));

/** Runs the green progress bar while the router loads a page. */
function NavigationProgressSync() {
  const { state } = useNavigation();
  const [used, setUsed] = useState(false);
  if (state !== 'idle' && !used) setUsed(true);
  if (!used) return null;
  return (
    <Suspense fallback={null}>
      <NavigationProgressBar state={state} />
    </Suspense>
  );
}

/** Sends this tab to /login when another tab logs out (spec §4). */
function LogoutListener() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(
    () =>
      listenForLogout(() => {
        endSession(queryClient);
        void navigate(loginPath());
      }),
    [navigate, queryClient],
  );
  return null;
}

function UploadTraySlot() {
  const { toggled } = useStore(uploadTray.store);
  if (!toggled) return null;
  return (
    <Suspense fallback={null}>
      <UploadTrayPanel tray={uploadTray} />
    </Suspense>
  );
}

function AlertSlot() {
  // an alert stays in the queue until its exit transition has run
  const items = useStore(alerts.store);
  if (items.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <AlertViewport />
    </Suspense>
  );
}

export function RootShell() {
  return (
    <>
      <NavigationProgressSync />
      <LogoutListener />
      <Outlet />
      <AlertSlot />
      <UploadTraySlot />
    </>
  );
}

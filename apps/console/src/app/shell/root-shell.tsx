import { nprogress } from '@mantine/nprogress';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Outlet, useNavigate, useNavigation } from 'react-router';
import { loginPath } from '../../lib/login-redirect';
import { endSession, listenForLogout } from '../../lib/session';
import { useStore } from '../../lib/store';
import { uploadTray } from '../../lib/upload-tray';
import { AlertViewport } from './alert-viewport';

/** The tray's code loads the first time something is uploaded, keeping it out of /login. */
const UploadTrayPanel = lazy(async () => ({ default: (await import('./upload-tray-panel')).UploadTrayPanel }));

/** Runs the green progress bar while the router loads a page. */
function NavigationProgressSync() {
  const navigation = useNavigation();
  const started = useRef(false);
  useEffect(() => {
    if (navigation.state !== 'idle') {
      started.current = true;
      nprogress.start();
    } else if (started.current) {
      started.current = false;
      nprogress.complete();
    }
  }, [navigation.state]);
  return null;
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

export function RootShell() {
  return (
    <>
      <NavigationProgressSync />
      <LogoutListener />
      <Outlet />
      <AlertViewport />
      <UploadTraySlot />
    </>
  );
}

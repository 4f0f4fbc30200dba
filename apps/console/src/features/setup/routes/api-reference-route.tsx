import { Skeleton } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { useApiSpec } from '../api/api-spec';
import { SettingsPageFrame } from './settings-page-frame';

// the viewer is large: fetched only when this page shows
const ApiReference = lazy(async () => ({ default: (await import('../components/api-reference')).ApiReference }));

/** The API reference: the server's OpenAPI 3.1 document, console and partner interfaces. */
export function ApiReferenceRoute() {
  const { t } = useTranslation();
  const spec = useApiSpec();
  return (
    <SettingsPageFrame id="api" title={t('settings.api.heading')} intro={t('settings.api.intro')}>
      {spec.error ? <ErrorAlert>{apiErrorMessage(t, spec.error)}</ErrorAlert> : null}
      {spec.data ? (
        <Suspense fallback={<Skeleton h={400} />}>
          <div data-testid="api-reference">
            <ApiReference spec={spec.data} />
          </div>
        </Suspense>
      ) : spec.error ? null : (
        <Skeleton h={400} />
      )}
    </SettingsPageFrame>
  );
}

import { Skeleton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import type { OpenApiDocument } from '../../../lib/openapi-document';
import { useApiSpec } from '../api/api-spec';
import { ApiReference } from '../components/api-reference';
import { SettingsPageFrame } from './settings-page-frame';

/** The API reference: the server's OpenAPI 3.1 document, console and partner interfaces. */
export function ApiReferenceRoute() {
  const { t } = useTranslation();
  const spec = useApiSpec();
  return (
    <SettingsPageFrame id="api" title={t('settings.api.heading')} intro={t('settings.api.intro')}>
      {spec.error ? <ErrorAlert>{apiErrorMessage(t, spec.error)}</ErrorAlert> : null}
      {spec.data ? (
        <div data-testid="api-reference">
          <ApiReference spec={spec.data as OpenApiDocument} />
        </div>
      ) : spec.error ? null : (
        <Skeleton h={400} />
      )}
    </SettingsPageFrame>
  );
}

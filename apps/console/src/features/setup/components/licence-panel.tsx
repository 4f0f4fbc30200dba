import { Alert, Badge, Button, FileButton, Group, Skeleton, Stack, Text } from '@mantine/core';
import type { TLicensingStatus } from '@manifold/contract';
import { IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { DetailRows } from '../../../components/detail-rows';
import { ErrorAlert } from '../../../components/error-alert';
import { alerts } from '../../../lib/alerts';
import { consoleConfigQueryKey } from '../../../lib/console-config';
import { useDateTimeFormat } from '../../../lib/format';
import { uploadTray } from '../../../lib/upload-tray';
import { licensingStatusQueryKey, uploadLicence, useLicensingStatus } from '../api/licensing';
import { FormGeneralErrors } from '../../../components/form-fields';
import { formatList } from '../../../lib/text-join';
import { stateText } from '../../../app/theme';

const noErrors: FormErrors = { fields: {}, general: [] };
const stateColors: Record<TLicensingStatus['state'], string> = {
  none: 'gray',
  valid: 'green',
  expiring: 'orange',
  expired: 'red',
};

/** The operating licence: what is installed, usage against its limits, and the upload of a new one. */
export function LicencePanel() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const status = useLicensingStatus();
  const formatDate = useDateTimeFormat();
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const resetFile = useRef<() => void>(null);

  if (status.error) return <ErrorAlert>{apiErrorMessage(t, status.error)}</ErrorAlert>;
  if (!status.data) return <Skeleton h={240} />;
  const { licence, usage, state } = status.data;

  const usageText = ({ used, limit }: { used: number; limit: number | null }) =>
    limit === null ? t('settings.licence.usageUnlimited', { used }) : t('settings.licence.usageOf', { used, limit });

  const upload = (file: File | null) => {
    if (!file) return;
    // the same file may be chosen again (after a refusal, or to see why it was refused)
    resetFile.current?.();
    setErrors(noErrors);
    uploadTray.addFiles([file], {
      uploadType: 'licence',
      upload: async (chosen, context) => {
        try {
          return await uploadLicence(chosen, context);
        } catch (error) {
          setErrors(formErrorsFrom(t, error, ['file']));
          throw error;
        }
      },
      finish: (result) => {
        queryClient.setQueryData(licensingStatusQueryKey, result);
        void queryClient.invalidateQueries({ queryKey: ['admin'] });
        void queryClient.invalidateQueries({ queryKey: consoleConfigQueryKey });
        alerts.success(t('settings.licence.installed', { holder: result.licence?.holder ?? '' }));
      },
    });
  };

  return (
    <Stack>
      <Group gap="sm">
        <Text fw={500}>{t('settings.licence.state')}</Text>
        <Badge color={stateColors[state]} variant="light" c={stateText(stateColors[state])} data-testid="licence-state">
          {t(`settings.licence.states.${state}`)}
        </Badge>
      </Group>
      {state === 'expiring' ? (
        <Alert color="orange" c="var(--manifold-warning)" title={t('settings.licence.expiringTitle')}>
          {t('settings.licence.expiringText', { count: status.data.daysLeft ?? 0 })}
        </Alert>
      ) : null}
      {state === 'expired' ? (
        <Alert color="red" c="var(--manifold-danger)" title={t('settings.licence.expiredTitle')}>
          {t('settings.licence.expiredText')}
        </Alert>
      ) : null}
      {state === 'none' ? <Text size="sm">{t('settings.licence.noneText')}</Text> : null}
      <DetailRows
        rows={[
          [t('settings.licence.holder'), licence?.holder ?? null],
          [t('settings.licence.licenceId'), licence?.licenceId ?? null],
          [t('settings.licence.validFrom'), licence ? formatDate(licence.validFrom) : null],
          [t('settings.licence.validUntil'), licence ? formatDate(licence.validUntil) : null],
          [
            t('settings.licence.addons'),
            licence
              ? formatList(
                  t,
                  licence.addons.map((name) => t(`settings.addons.names.${name}`)),
                )
              : null,
          ],
          [t('settings.licence.machines'), usageText(usage.machines)],
          [t('settings.licence.peerInstances'), usageText(usage.peerInstances)],
          [t('settings.licence.publisher'), status.data.publisher ?? t('settings.licence.noPublisher')],
        ]}
      />
      <FormGeneralErrors errors={errors} />
      <Group align="center">
        <FileButton onChange={upload} resetRef={resetFile}>
          {(props) => (
            <Button {...props} disabled={status.data.publisher === null} leftSection={<IconUpload size={16} aria-hidden />}>
              {t('settings.licence.upload')}
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed">
          {status.data.publisher === null ? t('settings.licence.configurePublisher') : t('settings.licence.uploadHint')}
        </Text>
      </Group>
      {errors.fields.file ? (
        <Text size="sm" c="var(--manifold-danger)" role="alert" data-testid="licence-upload-error">
          {errors.fields.file}
        </Text>
      ) : null}
    </Stack>
  );
}

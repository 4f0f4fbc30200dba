import { Badge, Button, Group, Progress, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { TStorageCredentials, TStorageMove, TStorageProviderSettings } from '@manifold/contract';
import { IconRefresh } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../../components/error-alert';
import { apiErrorMessage, formErrorsFrom, type FieldLabels, type FormErrors } from '../../../components/api-error-message';
import { FormGeneralErrors } from '../../../components/form-fields';
import { alerts } from '../../../lib/alerts';
import { useSelectStorageProvider, useStorageProvider, useStorageProviderList } from '../api/storage-provider';
import { stateText } from '../../../app/theme';
import { PasswordInput } from '../../../components/password-input';
import { DetailRows } from '../../../components/detail-rows';

type CredentialField = keyof TStorageCredentials;

/** The fields each provider asks for; secrets are typed into password fields and never shown again. */
const providerFields: Record<string, { field: CredentialField; secret?: boolean; optional?: boolean }[]> = {
  local: [],
  aws: [
    { field: 'awsStorageRegion' },
    { field: 'awsAccessKeyId', secret: true },
    { field: 'awsSecretAccessKey', secret: true },
    { field: 'awsStorageBucket' },
    { field: 'awsStorageEndpoint', optional: true },
  ],
  azure: [
    { field: 'azureAccountName' },
    { field: 'azureAccountKey', secret: true },
    { field: 'azureContainerName' },
    { field: 'azureEndpoint', optional: true },
  ],
};

/** How the API names a credential in a problem (`field`): as a property of the request's `credentials`. */
const credentialField = (field: CredentialField) => `credentials.${field}`;

/**
 * The chosen provider's settings as the server answers them (`credentials`: only those that are no
 * secret), in the form's order, each under its input's label.
 */
function ProviderSettingsRows({ identifier, settings }: { identifier: string; settings: TStorageProviderSettings }) {
  const { t } = useTranslation();
  const rows = (providerFields[identifier] ?? [])
    .filter(({ field, secret }) => secret !== true && field in settings)
    .map(({ field }): [string, string] => [
      t(`storage.fields.${field}`),
      settings[field as keyof TStorageProviderSettings] ?? '',
    ]);
  if (rows.length === 0) return null;
  return (
    <div data-testid="storage-provider-settings">
      <DetailRows rows={rows} />
    </div>
  );
}

const noErrors: FormErrors = { fields: {}, general: [] };

const moveColors: Record<TStorageMove['state'], string> = { running: 'blue', done: 'green', failed: 'red' };

/** Where the stored files go (local disk, S3, Azure Blob): chosen, probed by the server, then moved there. */
export function StorageProviderForm() {
  const { t } = useTranslation();
  const provider = useStorageProvider();
  const list = useStorageProviderList();
  const select = useSelectStorageProvider();
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [identifier, setIdentifier] = useState<string | null>(null);
  const [credentials, setCredentials] = useState<TStorageCredentials>({});
  const chosen = identifier ?? provider.data?.identifier ?? 'local';
  const move = provider.data?.move ?? null;
  const shownFields = providerFields[chosen] ?? [];
  // every credential is labelled, so a problem about one the chosen provider does not show is named too
  const labels: FieldLabels = (field) => {
    if (field === 'identifier') return t('storage.provider.identifier');
    const credential = field.startsWith('credentials.') ? field.slice('credentials.'.length) : undefined;
    return credential && Object.values(providerFields).some((fields) => fields.some((shown) => shown.field === credential))
      ? t(`storage.fields.${credential}`)
      : undefined;
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors(noErrors);
    const filled = Object.fromEntries(
      shownFields.map(({ field }) => [field, credentials[field]?.trim()]).filter(([, value]) => value),
    ) as TStorageCredentials;
    select.mutate(
      { identifier: chosen, credentials: filled },
      {
        onSuccess: (selected) => {
          setCredentials({});
          setIdentifier(null);
          alerts.success(
            selected.move?.state === 'running'
              ? t('storage.provider.savedMoving', { provider: t(`storage.providers.${chosen}`) })
              : t('storage.provider.saved', { provider: t(`storage.providers.${chosen}`) }),
          );
        },
        onError: (error) =>
          setErrors(
            formErrorsFrom(t, error, ['identifier', ...shownFields.map(({ field }) => credentialField(field))], {}, labels),
          ),
      },
    );
  };

  return (
    <Stack gap="md">
      {provider.error ? <ErrorAlert>{apiErrorMessage(t, provider.error)}</ErrorAlert> : null}
      <Text size="sm" data-testid="storage-current-provider">
        {provider.data?.configured
          ? t('storage.provider.current', { provider: t(`storage.providers.${provider.data.identifier ?? 'local'}`) })
          : t('storage.provider.none')}
      </Text>
      {provider.data?.configured && provider.data.credentials ? (
        <ProviderSettingsRows identifier={provider.data.identifier ?? 'local'} settings={provider.data.credentials} />
      ) : null}
      {move ? (
        <Stack gap={4} data-testid="storage-move" data-state={move.state}>
          <Group justify="space-between">
            <Text size="sm">
              {t('storage.move.title', {
                from: t(`storage.providers.${move.from}`),
                to: t(`storage.providers.${move.to}`),
              })}
            </Text>
            <Group gap="xs">
              <Badge variant="light" color={moveColors[move.state]} c={stateText(moveColors[move.state])}>
                {t(`storage.move.states.${move.state}`)}
              </Badge>
              <Button
                size="xs"
                variant="default"
                leftSection={<IconRefresh size={14} aria-hidden />}
                loading={provider.isFetching}
                onClick={() => void provider.refetch()}
              >
                {t('storage.move.refresh')}
              </Button>
            </Group>
          </Group>
          <Progress
            value={move.total === 0 ? 100 : Math.min(100, (move.moved / move.total) * 100)}
            aria-label={t('storage.move.progress', { moved: move.moved, count: move.total })}
          />
          <Text size="xs" c="dimmed">
            {t('storage.move.progress', { moved: move.moved, count: move.total })}
          </Text>
          {move.lastError ? <ErrorAlert>{t('storage.move.lastError', { error: move.lastError })}</ErrorAlert> : null}
        </Stack>
      ) : null}
      <form onSubmit={submit} aria-label={t('storage.provider.formLabel')}>
        <Stack gap="sm">
          <FormGeneralErrors errors={errors} testId="storage-provider-error" />
          <Select
            label={t('storage.provider.identifier')}
            data={(list.data?.data ?? ['local']).map((value) => ({ value, label: t(`storage.providers.${value}`) }))}
            value={chosen}
            allowDeselect={false}
            error={errors.fields.identifier}
            onChange={(value) => {
              setIdentifier(value);
              setCredentials({});
              setErrors(noErrors);
            }}
            data-testid="storage-provider-select"
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {shownFields.map(({ field, secret, optional }) => {
              const props = {
                label: t(`storage.fields.${field}`),
                required: !optional,
                autoComplete: 'off',
                value: credentials[field] ?? '',
                error: errors.fields[credentialField(field)],
                onChange: (event: React.ChangeEvent<HTMLInputElement>) =>
                  setCredentials((current) => ({ ...current, [field]: event.currentTarget.value })),
                'data-testid': `storage-field-${field}`,
              };
              return secret ? <PasswordInput key={field} {...props} /> : <TextInput key={field} {...props} />;
            })}
          </SimpleGrid>
          {chosen !== 'local' ? (
            <Text size="xs" c="dimmed">
              {t('storage.provider.secretsHint')}
            </Text>
          ) : null}
          <Group>
            <Button type="submit" loading={select.isPending} data-testid="storage-provider-save">
              {t('storage.provider.testAndSave')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

import { Alert, Badge, Button, Group, Radio, Stack, Text } from '@mantine/core';
import { keyTypes, type TKeyType } from '@manifold/contract';
import { IconKey, IconRefresh } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { useProvisionKeys } from '../api/provision-keys';
import { FormModal } from '../../../components/form-modal';
import { FormGeneralErrors } from '../../../components/form-fields';

const noErrors: FormErrors = { fields: {}, general: [] };
const fieldNames = ['keyType', 'rekey'] as const;
const fieldOfToken: Record<string, string> = { keyTypeInvalid: 'keyType', provisionAlreadyIntialized: 'keyType' };

function KeyTypeChoice({ value, onChange, error }: { value: TKeyType; onChange: (value: TKeyType) => void; error?: string }) {
  const { t } = useTranslation();
  return (
    <Radio.Group
      label={t('setup.keys.keyType')}
      description={t('setup.keys.keyTypeHint')}
      value={value}
      error={error}
      onChange={(next) => onChange(next === 'EC' ? 'EC' : 'RSA')}
    >
      <Stack gap="xs" mt="xs">
        {keyTypes.map((type) => (
          <Radio key={type} value={type} label={t(`setup.keys.types.${type}`)} />
        ))}
      </Stack>
    </Radio.Group>
  );
}

/** The crypto step: choose the key type and create the key pairs, or replace them after confirmation. */
export function KeysStep({ keyType }: { keyType: TKeyType | null }) {
  const { t } = useTranslation();
  const provision = useProvisionKeys();
  const [choice, setChoice] = useState<TKeyType>('RSA');
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [rekeyOpen, setRekeyOpen] = useState(false);
  const [rekeyChoice, setRekeyChoice] = useState<TKeyType>(keyType ?? 'RSA');
  const [rekeyErrors, setRekeyErrors] = useState<FormErrors>(noErrors);

  const create = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors(noErrors);
    // through the promise, not mutate's callbacks: the new keys remount this step (its key is the
    // key type) as the state is fetched again, and mutate's callbacks are dropped with the old one
    provision.mutateAsync({ keyType: choice, rekey: false }).then(
      (result) => alerts.success(t('setup.keys.created', { keyType: result.keyType })),
      (error: unknown) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)),
    );
  };

  const rekey = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setRekeyErrors(noErrors);
    provision.mutateAsync({ keyType: rekeyChoice, rekey: true }).then(
      (result) => {
        setRekeyOpen(false);
        alerts.success(t('setup.keys.replaced', { keyType: result.keyType, generation: result.generation }));
      },
      (error: unknown) => setRekeyErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)),
    );
  };

  if (keyType === null) {
    return (
      <form onSubmit={create} noValidate aria-label={t('setup.keys.createTitle')}>
        <Stack>
          <FormGeneralErrors errors={errors} />
          <KeyTypeChoice value={choice} onChange={setChoice} error={errors.fields.keyType} />
          <Group>
            <Button type="submit" loading={provision.isPending} leftSection={<IconKey size={16} aria-hidden />}>
              {t('setup.keys.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    );
  }

  return (
    <Stack>
      <Group gap="sm">
        <Text size="sm">{t('setup.keys.existing')}</Text>
        <Badge variant="light" color="green" c="var(--manifold-success)" data-testid="key-type">
          {t(`setup.keys.types.${keyType}`)}
        </Badge>
      </Group>
      <Group>
        <Button
          variant="default"
          leftSection={<IconRefresh size={16} aria-hidden />}
          onClick={() => {
            setRekeyChoice(keyType);
            setRekeyErrors(noErrors);
            setRekeyOpen(true);
          }}
        >
          {t('setup.keys.rekey')}
        </Button>
      </Group>
      <FormModal opened={rekeyOpen} onClose={() => setRekeyOpen(false)} title={t('setup.keys.rekeyTitle')} size="md">
        <form onSubmit={rekey} noValidate aria-label={t('setup.keys.rekeyTitle')}>
          <Stack>
            <Alert color="orange" variant="light">
              <Text size="sm">{t('setup.keys.rekeyWarning')}</Text>
            </Alert>
            <FormGeneralErrors errors={rekeyErrors} />
            <KeyTypeChoice value={rekeyChoice} onChange={setRekeyChoice} error={rekeyErrors.fields.keyType} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRekeyOpen(false)}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" color="red.9" loading={provision.isPending}>
                {t('setup.keys.rekeyConfirm')}
              </Button>
            </Group>
          </Stack>
        </form>
      </FormModal>
    </Stack>
  );
}

import { Group, NumberInput, Stack } from '@mantine/core';
import type { TOauthClientCreated } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import { FormButtons } from '../../../components/form-buttons';
import { FormGeneralErrors, FormTextarea, FormTextInput } from '../../../components/form-fields';
import { useFields } from '../../../hooks/use-fields';
import { useAddOauthClient } from '../api/oauth-clients';

const fieldNames = [
  'clientId',
  'resourceIds',
  'scope',
  'authorizedGrantTypes',
  'webServerRedirectUri',
  'authorities',
  'additionalInformation',
  'autoapprove',
  'accessTokenValidity',
  'refreshTokenValidity',
] as const;
const textFields = ['resourceIds', 'scope', 'authorities', 'autoapprove'] as const;

/** Adds an OAuth client (spec §3 Client; lists comma-delimited without spaces, validities in seconds). */
export function OauthClientForm({ onDone, onCancel }: { onDone: (client: TOauthClientCreated) => void; onCancel: () => void }) {
  const { t } = useTranslation();
  const { values, setField } = useFields(
    {
      clientId: '',
      resourceIds: '',
      scope: '',
      authorizedGrantTypes: 'client_credentials,refresh_token',
      webServerRedirectUri: '',
      authorities: 'USER',
      additionalInformation: '',
      autoapprove: '',
      accessTokenValidity: 3600 as number | string,
      refreshTokenValidity: 2_592_000 as number | string,
    },
    (field) => setErrors((current) => withoutFieldError(current, field)),
  );
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const add = useAddOauthClient();
  const form = { values, setField, errors };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    const { accessTokenValidity, refreshTokenValidity, additionalInformation, ...rest } = values;
    add.mutate(
      {
        ...rest,
        ...(additionalInformation ? { additionalInformation } : {}),
        ...(typeof accessTokenValidity === 'number' ? { accessTokenValidity } : {}),
        ...(typeof refreshTokenValidity === 'number' ? { refreshTokenValidity } : {}),
      },
      { onSuccess: onDone, onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames)) },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t('identity.clients.addTitle')}>
      <Stack>
        <FormGeneralErrors errors={errors} />
        <FormTextInput form={form} field="clientId" label={t('identity.clients.clientId')} withAsterisk />
        <FormTextInput
          form={form}
          field="authorizedGrantTypes"
          label={t('identity.clients.authorizedGrantTypes')}
          description={t('identity.clients.listHelp')}
          withAsterisk
        />
        <FormTextInput
          form={form}
          field="webServerRedirectUri"
          label={t('identity.clients.webServerRedirectUri')}
          description={t('identity.clients.redirectUriHelp')}
          withAsterisk
        />
        {textFields.map((field) => (
          <FormTextInput
            key={field}
            form={form}
            field={field}
            label={t(`identity.clients.${field}`)}
            description={t('identity.clients.listHelp')}
          />
        ))}
        <FormTextarea
          form={form}
          field="additionalInformation"
          label={t('identity.clients.additionalInformation')}
          autosize
          minRows={2}
        />
        <Group grow>
          <NumberInput
            label={t('identity.clients.accessTokenValidity')}
            name="accessTokenValidity"
            withAsterisk
            min={60}
            max={86_400}
            allowDecimal={false}
            value={values.accessTokenValidity}
            error={errors.fields.accessTokenValidity}
            onChange={(value) => setField('accessTokenValidity', value)}
          />
          <NumberInput
            label={t('identity.clients.refreshTokenValidity')}
            name="refreshTokenValidity"
            min={60}
            max={31_536_000}
            allowDecimal={false}
            value={values.refreshTokenValidity}
            error={errors.fields.refreshTokenValidity}
            onChange={(value) => setField('refreshTokenValidity', value)}
          />
        </Group>
        <FormButtons onCancel={onCancel} pending={add.isPending} />
      </Stack>
    </form>
  );
}

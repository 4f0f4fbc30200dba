import { SegmentedControl, Select, Stack, Switch, Text } from '@mantine/core';
import type { TRole, TSsoConnection, TSsoProvider } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FieldLabels, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import { FormButtons } from '../../../components/form-buttons';
import { FormGeneralErrors, FormTextarea, FormTextInput } from '../../../components/form-fields';
import { useFields } from '../../../hooks/use-fields';
import { getConsoleConfig } from '../../../lib/console-config';
import { useSaveSsoProvider } from '../api/sso-providers';
import { PasswordInput } from '../../../components/password-input';

/** The inputs the form shows for each connection (a SAML provider's redirect address is the server's own). */
const fieldNames = {
  oidc: ['name', 'domain', 'clientId', 'clientSecret', 'redirectUri', 'allowedDomains'],
  saml: ['name', 'domain', 'ssoUrl', 'idpCertificate', 'allowedDomains'],
} as const satisfies Record<TSsoConnection, readonly string[]>;

export interface SsoProviderFormProps {
  provider?: TSsoProvider;
  onDone: (provider: TSsoProvider) => void;
  onCancel: () => void;
}

/** Adds or changes an identity provider; the client secret is write-only (left empty: kept). */
export function SsoProviderForm({ provider, onDone, onCancel }: SsoProviderFormProps) {
  const { t } = useTranslation();
  const { values, setField } = useFields(
    {
      name: provider?.name ?? '',
      connection: provider?.connection ?? ('oidc' as TSsoConnection),
      enabled: provider?.enabled ?? true,
      domain: provider?.domain ?? '',
      clientId: provider?.clientId ?? '',
      clientSecret: '',
      redirectUri: provider?.connection === 'oidc' ? provider.redirectUri : `${getConsoleConfig().publicUrl}/login/oidc`,
      ssoUrl: provider?.ssoUrl ?? '',
      idpCertificate: provider?.idpCertificate ?? '',
      defaultRole: provider?.defaultRole ?? ('USER' as TRole),
      allowCreate: provider?.allowCreate ?? false,
      allowedDomains: provider?.allowedDomains ?? '',
    },
    (field) => setErrors((current) => withoutFieldError(current, field)),
  );
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const save = useSaveSsoProvider();
  const form = { values, setField, errors };
  const oidc = values.connection === 'oidc';
  const labels: FieldLabels = {
    name: t('identity.providers.name'),
    domain: oidc ? t('identity.providers.issuer') : t('identity.providers.entityId'),
    clientId: t('identity.providers.clientId'),
    clientSecret: t('identity.providers.clientSecret'),
    redirectUri: t('identity.providers.redirectUri'),
    ssoUrl: t('identity.providers.ssoUrl'),
    idpCertificate: t('identity.providers.idpCertificate'),
    defaultRole: t('identity.providers.defaultRole'),
    allowedDomains: t('identity.providers.allowedDomains'),
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    const { clientSecret, clientId, ssoUrl, idpCertificate, redirectUri, ...common } = values;
    save.mutate(
      {
        ...common,
        ...(provider ? { id: provider.id } : {}),
        ...(oidc ? { clientId, redirectUri, ...(clientSecret ? { clientSecret } : {}) } : { ssoUrl, idpCertificate }),
      },
      {
        onSuccess: onDone,
        onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames[values.connection], {}, labels)),
      },
    );
  };

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={provider ? t('identity.providers.editTitle') : t('identity.providers.addTitle')}
    >
      <Stack>
        <FormGeneralErrors errors={errors} />
        <FormTextInput form={form} field="name" label={t('identity.providers.name')} withAsterisk />
        <SegmentedControl
          aria-label={t('identity.providers.connection')}
          value={values.connection}
          disabled={!!provider}
          data={[
            { value: 'oidc', label: 'OpenID Connect' },
            { value: 'saml', label: 'SAML 2.0' },
          ]}
          onChange={(value) => setField('connection', value as TSsoConnection)}
        />
        <Switch
          label={t('identity.providers.enabled')}
          checked={values.enabled}
          onChange={(event) => setField('enabled', event.currentTarget.checked)}
        />
        <FormTextInput
          form={form}
          field="domain"
          label={oidc ? t('identity.providers.issuer') : t('identity.providers.entityId')}
          withAsterisk
        />
        {oidc ? (
          <>
            <FormTextInput form={form} field="clientId" label={t('identity.providers.clientId')} withAsterisk />
            <PasswordInput
              label={t('identity.providers.clientSecret')}
              description={provider?.clientSecretSet ? t('identity.providers.secretKept') : undefined}
              name="clientSecret"
              autoComplete="new-password"
              withAsterisk={!provider?.clientSecretSet}
              value={values.clientSecret}
              error={errors.fields.clientSecret}
              aria-invalid={Boolean(errors.fields.clientSecret)}
              onChange={(event) => setField('clientSecret', event.currentTarget.value)}
            />
            <FormTextInput
              form={form}
              field="redirectUri"
              label={t('identity.providers.redirectUri')}
              description={t('identity.providers.redirectUriHelp')}
              withAsterisk
            />
          </>
        ) : (
          <>
            <FormTextInput form={form} field="ssoUrl" label={t('identity.providers.ssoUrl')} withAsterisk />
            <FormTextarea
              form={form}
              field="idpCertificate"
              label={t('identity.providers.idpCertificate')}
              withAsterisk
              autosize
              minRows={4}
              styles={{ input: { fontFamily: 'monospace' } }}
            />
            {provider ? (
              <Text size="sm" c="dimmed">
                {t('identity.providers.acsUrl', { url: provider.redirectUri })}
              </Text>
            ) : null}
          </>
        )}
        <Select
          label={t('identity.providers.defaultRole')}
          data={[
            { value: 'USER', label: t('roles.USER') },
            { value: 'ADMIN', label: t('roles.ADMIN') },
          ]}
          allowDeselect={false}
          value={values.defaultRole}
          onChange={(value) => setField('defaultRole', (value ?? 'USER') as TRole)}
        />
        <Switch
          label={t('identity.providers.allowCreate')}
          checked={values.allowCreate}
          onChange={(event) => setField('allowCreate', event.currentTarget.checked)}
        />
        <FormTextInput
          form={form}
          field="allowedDomains"
          label={t('identity.providers.allowedDomains')}
          description={t('identity.providers.allowedDomainsHelp')}
        />
        <FormButtons onCancel={onCancel} pending={save.isPending} />
      </Stack>
    </form>
  );
}

import { Select, Stack, TextInput } from '@mantine/core';
import type { TManageType } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { FormButtons } from '../../../components/form-buttons';
import { FormModal } from '../../../components/form-modal';
import { alerts } from '../../../lib/alerts';
import { useAddManageInstance, useAddTraceInstance } from '../api/registrations';
import { FormGeneralErrors } from '../../../components/form-fields';

const noErrors: FormErrors = { fields: {}, general: [] };
/** Tokens about the address the admin typed, placed on its input. */
const urlTokens = [
  'httpClientBadUrl',
  'certificateExchangeCommunicationFailed',
  'certificateExchangeInvalidResponse',
  'registrationExchangeCommunicationFailed',
  'registrationExchangeInvalidResponse',
  'registrationExchangeInvalidTarget',
];

export interface AddPeerFormProps {
  /** A Manage peer (with its type) or a Trace instance. */
  kind: 'manage' | 'trace';
  /** The type preselected for a Manage peer. */
  initialType?: TManageType;
  onCancel: () => void;
  onDone: (siteName: string) => void;
}

/**
 * Registers with a peer at the address typed: the server exchanges certificates and posts a
 * signed registration there, so the peer's refusals come back as they are, in words.
 */
export function AddPeerForm({ kind, initialType = 'downStreamManage', onCancel, onDone }: AddPeerFormProps) {
  const { t } = useTranslation();
  const field = kind === 'manage' ? 'manageUrl' : 'traceUrl';
  const [url, setUrl] = useState('');
  const [type, setType] = useState<TManageType>(initialType);
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const addManage = useAddManageInstance();
  const addTrace = useAddTraceInstance();
  const pending = addManage.isPending || addTrace.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors(noErrors);
    const onError = (error: unknown) =>
      setErrors(
        formErrorsFrom(t, error, [field, 'registrationType'], Object.fromEntries(urlTokens.map((token) => [token, field]))),
      );
    if (kind === 'manage') {
      addManage.mutate(
        { registrationType: type, manageUrl: url.trim() },
        { onSuccess: (added) => onDone(added.manageSiteName), onError },
      );
    } else {
      addTrace.mutate({ traceUrl: url.trim() }, { onSuccess: (added) => onDone(added.traceSiteName), onError });
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <FormGeneralErrors errors={errors} />
        {kind === 'manage' ? (
          <Select
            label={t('network.add.type')}
            description={t('network.add.typeHelp')}
            allowDeselect={false}
            value={type}
            error={errors.fields.registrationType}
            data={[
              { value: 'downStreamManage', label: t('network.relations.downStreamManage') },
              { value: 'upStreamManage', label: t('network.relations.upStreamManage') },
            ]}
            onChange={(value) => setType(value === 'upStreamManage' ? 'upStreamManage' : 'downStreamManage')}
          />
        ) : null}
        <TextInput
          label={t('network.add.url')}
          description={kind === 'manage' ? t('network.add.manageUrlHelp') : t('network.add.traceUrlHelp')}
          placeholder="https://manage.example.com"
          withAsterisk
          value={url}
          error={errors.fields[field]}
          onChange={(event) => setUrl(event.currentTarget.value)}
        />
        <FormButtons onCancel={onCancel} pending={pending} />
      </Stack>
    </form>
  );
}

export interface AddPeerModalProps extends Pick<AddPeerFormProps, 'kind' | 'initialType'> {
  opened: boolean;
  onClose: () => void;
  title: string;
}

/** The registration form in its modal; a registration made is announced and closes it. */
export function AddPeerModal({ kind, initialType, opened, onClose, title }: AddPeerModalProps) {
  const { t } = useTranslation();
  return (
    <FormModal opened={opened} onClose={onClose} title={title}>
      {opened ? (
        <AddPeerForm
          kind={kind}
          initialType={initialType}
          onCancel={onClose}
          onDone={(siteName) => {
            onClose();
            alerts.success(t('network.added', { name: siteName }));
          }}
        />
      ) : null}
    </FormModal>
  );
}

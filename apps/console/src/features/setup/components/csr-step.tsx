import { Button, Group, Select, Stack, Text } from '@mantine/core';
import { csrKinds, services, type TService } from '@manifold/contract';
import { IconDownload } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { saveText } from '../../../lib/download';
import { useGetCsrs, type GetCsrsInput } from '../api/get-csrs';
import { FormGeneralErrors } from '../../../components/form-fields';

const noErrors: FormErrors = { fields: {}, general: [] };
const fieldNames = ['csr', 'service'] as const;
const fieldOfToken: Record<string, string> = { csrParameterInvalid: 'csr', serviceInvalid: 'service' };

type CsrKind = GetCsrsInput['csr'];

function isCsrKind(value: string | null): value is CsrKind {
  return csrKinds.some((kind) => kind === value);
}

function isService(value: string | null): value is TService {
  return services.some((service) => service === value);
}

/** File name of a download: one request as .csr, both together as a .pem bundle. */
export function csrFileName(kind: CsrKind, service: TService): string {
  return kind === 'both' ? `manifold-${service}-csrs.pem` : `manifold-${service}-${kind}.csr`;
}

/** Downloads the certificate signing requests for the network CA to sign. */
export function CsrStep({ provisioned }: { provisioned: boolean }) {
  const { t } = useTranslation();
  const getCsrs = useGetCsrs();
  const [kind, setKind] = useState<CsrKind>('both');
  const [service, setService] = useState<TService>('manage');
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  const download = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors(noErrors);
    getCsrs.mutate(
      { csr: kind, service },
      {
        onSuccess: (result) => {
          const text = [result.signingCSR, result.encryptionCSR]
            .filter((pem): pem is string => pem !== null)
            .map((pem) => pem.trim())
            .join('\n');
          saveText(`${text}\n`, csrFileName(kind, service), 'application/pkcs10');
        },
        onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)),
      },
    );
  };

  return (
    <form onSubmit={download} noValidate aria-label={t('setup.csr.heading')}>
      <Stack>
        <Text size="sm">{t('setup.csr.intro')}</Text>
        {!provisioned ? (
          <Text size="sm" c="dimmed">
            {t('setup.csr.needsKeys')}
          </Text>
        ) : null}
        <FormGeneralErrors errors={errors} />
        <Group align="flex-start" grow maw={560}>
          <Select
            label={t('setup.csr.kind')}
            data={csrKinds.map((value) => ({ value, label: t(`setup.csr.kinds.${value}`) }))}
            value={kind}
            allowDeselect={false}
            error={errors.fields.csr}
            onChange={(value) => {
              if (isCsrKind(value)) setKind(value);
            }}
          />
          <Select
            label={t('setup.csr.service')}
            data={services.map((value) => ({ value, label: t(`setup.csr.services.${value}`) }))}
            value={service}
            allowDeselect={false}
            error={errors.fields.service}
            onChange={(value) => {
              if (isService(value)) setService(value);
            }}
          />
        </Group>
        <Group>
          <Button
            type="submit"
            variant="light"
            disabled={!provisioned}
            loading={getCsrs.isPending}
            leftSection={<IconDownload size={16} aria-hidden />}
          >
            {t('setup.csr.download')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

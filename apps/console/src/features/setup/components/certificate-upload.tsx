import { Button, FileButton, Group, Select, Stack, Text } from '@mantine/core';
import { uploadCertificateTypes } from '@manifold/contract';
import { IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { uploadTray } from '../../../lib/upload-tray';
import { uploadProvisionCertificate, type UploadCertificateType } from '../api/upload-provision-certificate';
import { FormGeneralErrors } from '../../../components/form-fields';

const noErrors: FormErrors = { fields: {}, general: [] };
const fieldNames = ['file', 'certificateType'] as const;
const fieldOfToken: Record<string, string> = {
  provisionCsrInvalid: 'file',
  provisionNotInitialized: 'certificateType',
  trustAnchorInvalid: 'file',
  uploadFileMissing: 'file',
  certificateTypeInvalid: 'certificateType',
  certificateExchangeChainVerifyFail: 'file',
  certificateExchangeCertificateChainVerifyFail: 'file',
};

function isCertificateType(value: string | null): value is UploadCertificateType {
  return uploadCertificateTypes.some((type) => type === value);
}

/** Uploads network roots and the server's certificates (PEM, with chain) through the upload tray. */
export function CertificateUpload({ provisioned }: { provisioned: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [certificateType, setCertificateType] = useState<UploadCertificateType>('trustAnchor');
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const resetFile = useRef<() => void>(null);
  const needsKeys = certificateType !== 'trustAnchor' && !provisioned;

  const upload = (file: File | null) => {
    if (!file) return;
    // the same file may be chosen again (as another certificate type, or once its root is trusted)
    resetFile.current?.();
    setErrors(noErrors);
    const type = certificateType;
    uploadTray.addFiles([file], {
      uploadType: `provision-${type}`,
      upload: async (chosen, context) => {
        try {
          return await uploadProvisionCertificate(type, chosen, context);
        } catch (error) {
          setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken));
          throw error;
        }
      },
      finish: (result) => {
        alerts.success(t(`setup.upload.installed.${result.certificateType}`, { subject: result.certificate.subject }));
        void queryClient.invalidateQueries({ queryKey: ['admin'] });
      },
    });
  };

  return (
    <Stack>
      <Text size="sm">{t('setup.upload.intro')}</Text>
      <FormGeneralErrors errors={errors} />
      <Select
        label={t('setup.upload.certificateType')}
        maw={360}
        data={uploadCertificateTypes.map((value) => ({ value, label: t(`setup.upload.types.${value}`) }))}
        value={certificateType}
        allowDeselect={false}
        error={errors.fields.certificateType}
        description={needsKeys ? t('setup.upload.needsKeys') : undefined}
        onChange={(value) => {
          if (isCertificateType(value)) setCertificateType(value);
        }}
      />
      <Group align="center">
        <FileButton
          onChange={upload}
          accept=".pem,.crt,.cer,application/x-pem-file,application/x-x509-ca-cert"
          resetRef={resetFile}
        >
          {(props) => (
            <Button {...props} disabled={needsKeys} leftSection={<IconUpload size={16} aria-hidden />}>
              {t('setup.upload.choose')}
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed">
          {t('setup.upload.formats')}
        </Text>
      </Group>
      {errors.fields.file ? (
        <Text size="sm" c="var(--manifold-danger)" role="alert" data-testid="certificate-upload-error">
          {errors.fields.file}
        </Text>
      ) : null}
    </Stack>
  );
}

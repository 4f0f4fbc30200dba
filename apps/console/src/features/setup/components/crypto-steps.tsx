import { Skeleton, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useProvisionCertificates } from '../api/get-provision-certificates';
import { CertificateUpload } from './certificate-upload';
import { InstalledCertificates } from './certificate-details';
import { CsrStep } from './csr-step';
import { DevelopmentCa } from './development-ca';
import { KeysStep } from './keys-step';
import { Section } from '../../../components/section';
import { ErrorAlert } from '../../../components/error-alert';

/** The wizard's crypto, signCert and cryptCert steps: keys, CSRs, certificate uploads, what is installed. */
export function CryptoSteps() {
  const { t } = useTranslation();
  const certificates = useProvisionCertificates();

  if (certificates.error) {
    return <ErrorAlert>{apiErrorMessage(t, certificates.error)}</ErrorAlert>;
  }
  if (!certificates.data) return <Skeleton h={160} role="status" aria-label={t('common.loading')} />;
  const { keyType, signing, encryption, trustAnchors, developmentCaEnabled } = certificates.data;
  const provisioned = keyType !== null;

  return (
    <Stack gap="lg">
      <Section id="setup-keys" title={t('setup.keys.heading')}>
        <KeysStep key={keyType ?? 'none'} keyType={keyType} />
      </Section>
      <Section id="setup-csr" title={t('setup.csr.heading')}>
        <CsrStep provisioned={provisioned} />
      </Section>
      <Section id="setup-upload" title={t('setup.upload.heading')}>
        <CertificateUpload provisioned={provisioned} />
      </Section>
      {developmentCaEnabled ? (
        <Section id="setup-development-ca" title={t('setup.developmentCa.heading')}>
          <DevelopmentCa provisioned={provisioned} />
        </Section>
      ) : null}
      <Section id="setup-certificates" title={t('setup.certificates.heading')}>
        <InstalledCertificates signing={signing} encryption={encryption} trustAnchors={trustAnchors} />
      </Section>
    </Stack>
  );
}

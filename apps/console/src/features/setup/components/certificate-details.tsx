import { Badge, Card, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { TCertificateInfo } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { useDateTimeFormat } from '../../../lib/format';
import { stateText } from '../../../app/theme';

type Validity = 'valid' | 'expired' | 'notYetValid';

function validityOf(info: TCertificateInfo, now: number): Validity {
  if (Date.parse(info.notAfter) < now) return 'expired';
  if (Date.parse(info.notBefore) > now) return 'notYetValid';
  return 'valid';
}

const validityColors: Record<Validity, string> = { valid: 'green', expired: 'red', notYetValid: 'yellow' };

/** One certificate: subject, issuer, serial, validity, key usage, SHA-256 fingerprint. */
export function CertificateDetails({ info, title, testId }: { info: TCertificateInfo; title: string; testId: string }) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const validity = validityOf(info, Date.now());
  const headingId = `${testId}-heading`;
  return (
    <Card withBorder component="section" aria-labelledby={headingId} data-testid={testId}>
      <Group justify="space-between" mb="xs" gap="xs">
        <Title order={3} size="h5" id={headingId}>
          {title}
        </Title>
        <Group gap={6}>
          {info.development ? (
            <Badge color="orange" variant="light" c="var(--manifold-text)">
              {t('setup.certificates.development')}
            </Badge>
          ) : null}
          <Badge color={validityColors[validity]} variant="light" c={stateText(validityColors[validity])}>
            {t(`setup.certificates.validity.${validity}`)}
          </Badge>
        </Group>
      </Group>
      <Table variant="vertical" withTableBorder layout="fixed">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={170}>{t('setup.certificates.subject')}</Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{info.subject}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('setup.certificates.issuer')}</Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{info.issuer}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('setup.certificates.serialNumber')}</Table.Th>
            <Table.Td>
              <Code style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>{info.serialNumber}</Code>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('setup.certificates.validFrom')}</Table.Th>
            <Table.Td>
              <time dateTime={info.notBefore}>{format(info.notBefore)}</time>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('setup.certificates.validTo')}</Table.Th>
            <Table.Td>
              <time dateTime={info.notAfter}>{format(info.notAfter)}</time>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('setup.certificates.keyUsage')}</Table.Th>
            <Table.Td>
              {info.keyUsage.length === 0 ? (
                <Text size="sm" c="dimmed" component="span">
                  {t('setup.certificates.noKeyUsage')}
                </Text>
              ) : (
                <Group gap={4}>
                  {info.keyUsage.map((usage) => (
                    <Badge key={usage} variant="outline" color="gray" c="var(--manifold-text)" tt="none">
                      {usage}
                    </Badge>
                  ))}
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('setup.certificates.keyType')}</Table.Th>
            <Table.Td>{info.keyType === 'other' ? t('setup.certificates.otherKeyType') : info.keyType}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('setup.certificates.fingerprint')}</Table.Th>
            <Table.Td>
              <Code style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }} data-testid={`${testId}-fingerprint`}>
                {info.fingerprintSha256}
              </Code>
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/** The installed certificates of both key pairs and the network's trust anchors. */
export function InstalledCertificates({
  signing,
  encryption,
  trustAnchors,
}: {
  signing: TCertificateInfo | null;
  encryption: TCertificateInfo | null;
  trustAnchors: readonly TCertificateInfo[];
}) {
  const { t } = useTranslation();
  return (
    <Stack>
      {signing ? (
        <CertificateDetails info={signing} title={t('setup.certificates.signing')} testId="certificate-signing" />
      ) : (
        <Text size="sm" c="dimmed" data-testid="certificate-signing-missing">
          {t('setup.certificates.signingMissing')}
        </Text>
      )}
      {encryption ? (
        <CertificateDetails info={encryption} title={t('setup.certificates.encryption')} testId="certificate-encryption" />
      ) : (
        <Text size="sm" c="dimmed" data-testid="certificate-encryption-missing">
          {t('setup.certificates.encryptionMissing')}
        </Text>
      )}
      <Title order={3} size="h5">
        {t('setup.certificates.trustAnchors', { count: trustAnchors.length })}
      </Title>
      {trustAnchors.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('setup.certificates.noTrustAnchors')}
        </Text>
      ) : (
        trustAnchors.map((anchor) => (
          <CertificateDetails
            key={anchor.fingerprintSha256}
            info={anchor}
            title={anchor.subject}
            testId={`trust-anchor-${anchor.fingerprintSha256.replaceAll(':', '').slice(0, 16)}`}
          />
        ))
      )}
    </Stack>
  );
}

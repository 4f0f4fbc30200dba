import { Anchor, Button, Code, FileButton, Group, Image, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { TDeviceDetail } from '@manifold/contract';
import { IconArrowLeft, IconPhoto } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { alerts } from '../../../lib/alerts';
import { useAuthorizedImage } from '../../../lib/authorized-image';
import { useDateTimeFormat } from '../../../lib/format';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { uploadTray } from '../../../lib/upload-tray';
import { useDevice } from '../api/get-device';
import { uploadDeviceImage } from '../api/upload-device-image';
import { DeviceActions } from '../components/device-actions';
import { DeviceParametersTable } from '../components/device-parameters-table';
import { DeviceStateBadge } from '../components/device-state-badge';
import { DetailRows } from '../../../components/detail-rows';
import { Section } from '../../../components/section';
import { ErrorAlert } from '../../../components/error-alert';
import { formatList } from '../../../lib/text-join';

const imageTypes = ['image/png', 'image/jpeg', 'image/webp'];

function DeviceImage({ device, canEdit }: { device: TDeviceDetail; canEdit: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const src = useAuthorizedImage('GET /ui/device/image/:image', device.deviceIdentity.image);
  const [error, setError] = useState<string | null>(null);

  const upload = (file: File | null) => {
    if (!file) return;
    setError(null);
    uploadTray.addFiles([file], {
      uploadType: 'device-image',
      upload: async (chosen, context) => {
        try {
          return await uploadDeviceImage(device.deviceId, chosen, context);
        } catch (caught) {
          setError(apiErrorMessage(t, caught));
          throw caught;
        }
      },
      finish: () => {
        alerts.success(t('devices.image.uploaded'));
        void queryClient.invalidateQueries({ queryKey: ['devices'] });
      },
    });
  };

  return (
    <Stack>
      {src ? (
        <Image
          src={src}
          alt={t('devices.image.alt', { name: device.deviceIdentity.name })}
          maw={280}
          radius="sm"
          data-testid="device-image"
        />
      ) : (
        <Text size="sm" c="dimmed">
          {t('devices.image.none')}
        </Text>
      )}
      {canEdit ? (
        <Group>
          <FileButton onChange={upload} accept={imageTypes.join(',')}>
            {(props) => (
              <Button {...props} variant="default" leftSection={<IconPhoto size={16} aria-hidden />}>
                {t('devices.image.upload')}
              </Button>
            )}
          </FileButton>
        </Group>
      ) : null}
      {error ? <ErrorAlert>{error}</ErrorAlert> : null}
    </Stack>
  );
}

/** A machine: identity, state and actions, picture, certificates, parameters. */
export function DeviceRoute() {
  const { t } = useTranslation();
  const { deviceId = '' } = useParams();
  const navigate = useNavigate();
  const format = useDateTimeFormat();
  const session = useQuery(sessionQueryOptions());
  const canApprove = roleCan(session.data?.userProfile.role, 'POST /ui/device/approve');
  const canSetImage = roleCan(session.data?.userProfile.role, 'POST /ui/device/image');
  const device = useDevice(deviceId);

  if (device.error) {
    return (
      <Stack>
        <PageHead title={t('devices.title')} />
        <Anchor component={Link} to="/devices" size="sm" c="var(--manifold-link)">
          <IconArrowLeft size={14} aria-hidden /> {t('devices.back')}
        </Anchor>
        <ErrorAlert>{apiErrorMessage(t, device.error)}</ErrorAlert>
      </Stack>
    );
  }
  if (!device.data) return <PageLoader />;
  const detail = device.data;
  const identity = detail.deviceIdentity;

  const certificateRows = (certificate: TDeviceDetail['signingCertificate']): [string, ReactNode][] => [
    [t('setup.certificates.subject'), certificate.subject],
    [t('setup.certificates.issuer'), certificate.issuer],
    [t('devices.certificates.keySerialNumber'), <Code key="serial">{certificate.keySerialNumber}</Code>],
    [
      t('setup.certificates.validTo'),
      <time key="until" dateTime={certificate.notAfter}>
        {format(certificate.notAfter)}
      </time>,
    ],
    [t('setup.certificates.keyUsage'), formatList(t, certificate.keyUsage)],
    [
      t('setup.certificates.fingerprint'),
      <Code key="fingerprint" style={{ whiteSpace: 'normal' }}>
        {certificate.fingerprintSha256}
      </Code>,
    ],
  ];

  return (
    <Stack gap="lg">
      <PageHead title={identity.name} description={t('devices.detailDescription')} />
      <Anchor component={Link} to="/devices" size="sm" c="var(--manifold-link)">
        <IconArrowLeft size={14} aria-hidden /> {t('devices.back')}
      </Anchor>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{identity.name}</Title>
          <Group gap="xs" data-testid="device-state">
            <DeviceStateBadge device={detail} />
          </Group>
        </Stack>
      </Group>
      {canApprove ? (
        <Section id="device-actions" title={t('devices.actions.heading')}>
          <DeviceActions device={detail} onDeleted={() => void navigate('/devices')} />
        </Section>
      ) : null}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Section id="device-identity" title={t('devices.identity.heading')}>
          <DetailRows
            labelWidth={180}
            rows={[
              [t('devices.identity.id'), identity.id],
              [t('devices.identity.name'), identity.name],
              [t('devices.identity.serialNumber'), identity.serialNumber],
              [t('devices.identity.manufacturer'), identity.manufacturer],
              [t('devices.identity.model'), identity.model],
              [t('devices.identity.family'), identity.family],
              [t('devices.identity.deviceClass'), identity.deviceClass],
              [t('devices.identity.technology'), identity.technology],
              [t('devices.parameterVersion'), detail.parameterVersion],
              [
                t('devices.registered'),
                <time key="created" dateTime={detail.dateCreated}>
                  {format(detail.dateCreated)}
                </time>,
              ],
              [t('devices.authorizedUsers'), formatList(t, detail.authorizedUserList)],
            ]}
          />
        </Section>
        <Section id="device-image-section" title={t('devices.image.heading')}>
          <DeviceImage device={detail} canEdit={canSetImage} />
        </Section>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Section id="device-signing-certificate" title={t('devices.certificates.signing')}>
          <DetailRows labelWidth={180} rows={certificateRows(detail.signingCertificate)} />
        </Section>
        <Section id="device-encryption-certificate" title={t('devices.certificates.encryption')}>
          <DetailRows labelWidth={180} rows={certificateRows(detail.encryptionCertificate)} />
        </Section>
      </SimpleGrid>
      <Section id="device-parameters-section" title={t('devices.parameters.heading')}>
        <DeviceParametersTable parameters={detail.parameters} />
      </Section>
    </Stack>
  );
}

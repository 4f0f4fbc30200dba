import { Anchor, Badge, Drawer, Stack, Table, Text, Title } from '@mantine/core';
import type { TManageInstance, TManageType, TRegistrationState, TTraceInstance } from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../../components/data-table';
import { DetailRows } from '../../../components/detail-rows';
import { useDateTimeFormat } from '../../../lib/format';
import type { PeerKind } from '../api/registrations';
import { RegistrationActions } from './registration-actions';
import { RegistrationStateBadge } from './registration-state-badge';

type CryptoCert = TManageInstance['cryptoCertsForSigning'][number];

/** A Manage or Trace registration as the Network screens show it. */
export interface PeerRow {
  id: string;
  siteName: string;
  url: string;
  /** How this instance holds a Manage peer; none for a Trace registration. */
  relation: TManageType | null;
  state: TRegistrationState;
  initiator: boolean;
  registrationNonce: string | null;
  dateCreated: string;
  version: number;
  signing: CryptoCert[];
  encryption: CryptoCert[];
}

export function manageRow(instance: TManageInstance): PeerRow {
  return {
    id: instance.manageId,
    siteName: instance.manageSiteName,
    url: instance.manageURL,
    relation: instance.manageType,
    state: instance.registrationState,
    initiator: instance.initiator,
    registrationNonce: instance.registrationNonce,
    dateCreated: instance.dateCreated,
    version: instance.version,
    signing: instance.cryptoCertsForSigning,
    encryption: instance.cryptoCertsForEncryption,
  };
}

export function traceRow(instance: TTraceInstance): PeerRow {
  return {
    id: instance.id,
    siteName: instance.traceSiteName,
    url: instance.traceURL,
    relation: null,
    state: instance.registrationState,
    initiator: instance.initiator,
    registrationNonce: null,
    dateCreated: instance.dateCreated,
    version: instance.version,
    signing: instance.cryptoCertsForSigning,
    encryption: instance.cryptoCertsForEncryption,
  };
}

export interface PeerRegistrationsTableProps {
  kind: Exclude<PeerKind, 'protect'>;
  testId: string;
  rows: PeerRow[];
  busy: boolean;
  total: number;
  /** Shows the Upstream / Downstream column (the Manage list of both kinds). */
  showRelation?: boolean;
}

/** Manage or Trace registrations with their state, who asked, and actions; a drawer shows a peer's certificates. */
export function PeerRegistrationsTable({ kind, testId, rows, busy, total, showRelation = false }: PeerRegistrationsTableProps) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const [shown, setShown] = useState<PeerRow | null>(null);

  return (
    <>
      <DataTable
        testId={testId}
        minWidth={900}
        busy={busy}
        caption={t('network.caption', { count: total })}
        columns={[
          t('network.siteName'),
          t('network.url'),
          showRelation ? t('network.relation') : null,
          t('network.state'),
          t('network.askedBy'),
          t('network.created'),
          t('common.actions'),
        ]}
        empty={rows.length === 0 && !busy ? t('network.empty') : null}
      >
        {rows.map((row) => (
          <Table.Tr key={row.id} data-registration-id={row.id}>
            <Table.Td>{row.siteName}</Table.Td>
            <Table.Td style={{ wordBreak: 'break-all' }}>{row.url}</Table.Td>
            {showRelation && row.relation ? <Table.Td>{t(`network.relations.${row.relation}`)}</Table.Td> : null}
            <Table.Td style={{ whiteSpace: 'nowrap' }}>
              <RegistrationStateBadge state={row.state} />
            </Table.Td>
            <Table.Td>{row.initiator ? t('network.askedByUs') : t('network.askedByPeer')}</Table.Td>
            <Table.Td>
              <time dateTime={row.dateCreated}>{format(row.dateCreated)}</time>
            </Table.Td>
            <Table.Td>
              <RegistrationActions
                kind={kind}
                id={row.id}
                name={row.siteName}
                state={row.state}
                undecidable={row.initiator ? t('network.initiatorCannotDecide') : null}
                onCertificates={() => setShown(row)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <Drawer
        opened={shown !== null}
        onClose={() => setShown(null)}
        position="right"
        size="lg"
        title={shown ? t('network.certificates.title', { name: shown.siteName }) : ''}
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        {shown ? <PeerDetails row={shown} /> : null}
      </Drawer>
    </>
  );
}

/** A peer's registration and the certificates it gave at the exchange. */
function PeerDetails({ row }: { row: PeerRow }) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  return (
    <Stack data-testid="peer-details">
      <DetailRows
        labelWidth={160}
        rows={[
          [t('network.siteName'), row.siteName],
          [
            t('network.url'),
            <Anchor key="url" href={row.url} target="_blank" rel="noreferrer">
              {row.url}
            </Anchor>,
          ],
          ...(row.relation ? [[t('network.relation'), t(`network.relations.${row.relation}`)] as [string, string]] : []),
          [t('network.state'), <RegistrationStateBadge key="state" state={row.state} />],
          [t('network.askedBy'), row.initiator ? t('network.askedByUs') : t('network.askedByPeer')],
          ...(row.registrationNonce ? [[t('network.nonce'), row.registrationNonce] as [string, string]] : []),
          [t('network.created'), format(row.dateCreated)],
          [t('network.version'), String(row.version)],
        ]}
      />
      <CertificateTable title={t('network.certificates.signing')} certificates={row.signing} />
      <CertificateTable title={t('network.certificates.encryption')} certificates={row.encryption} />
    </Stack>
  );
}

function CertificateTable({ title, certificates }: { title: string; certificates: CryptoCert[] }) {
  const { t } = useTranslation();
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        {title}
      </Title>
      {certificates.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('network.certificates.none')}
        </Text>
      ) : (
        <DataTable
          bordered
          minWidth={420}
          caption={title}
          columns={[t('network.certificates.company'), t('network.certificates.serial'), t('network.certificates.status')]}
        >
          {certificates.map((certificate) => (
            <Table.Tr key={certificate.keySerialNumber}>
              <Table.Td>{certificate.companyName}</Table.Td>
              <Table.Td style={{ wordBreak: 'break-all' }}>{certificate.keySerialNumber}</Table.Td>
              <Table.Td>
                {certificate.revoked ? (
                  <Badge color="red" variant="light" c="var(--manifold-danger)">
                    {t('network.certificates.revoked')}
                  </Badge>
                ) : (
                  t('network.certificates.valid')
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Stack>
  );
}

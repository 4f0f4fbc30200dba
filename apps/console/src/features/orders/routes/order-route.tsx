import { Anchor, Card, Code, Group, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { TDeviceIdentityConstraint, TDeviceParameter, TOrderDetail, TQualityParameter } from '@manifold/contract';
import { IconArrowLeft } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { AuthorizationTable } from '../../../components/authorization-table';
import { DataTable } from '../../../components/data-table';
import { ListPagination } from '../../../components/list-pagination';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { useDateTimeFormat } from '../../../lib/format';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { useOrder } from '../api/get-order';
import { OrderActions } from '../components/order-actions';
import { OrderGroups } from '../components/order-groups';
import { OrderStateBadges } from '../components/order-state-badges';
import { DetailRows } from '../../../components/detail-rows';
import { Section } from '../../../components/section';
import { ErrorAlert } from '../../../components/error-alert';
import { formatList } from '../../../lib/text-join';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

/** The fields of a machine's identity an order constrains, in the order the device screen shows them. */
const machineFields = [
  'id',
  'name',
  'serialNumber',
  'manufacturer',
  'model',
  'family',
  'deviceClass',
  'technology',
] as const satisfies readonly (keyof TDeviceIdentityConstraint)[];

/** What a machine must be to take the order's licences: each field by the label the device screen gives it. */
function MachineConstraints({ constraints }: { constraints: TDeviceIdentityConstraint }) {
  const { t } = useTranslation();
  return (
    <List size="sm" listStyleType="none" spacing={2}>
      {machineFields
        .filter((field) => constraints[field] !== undefined)
        .map((field) => (
          <List.Item key={field}>
            {t('common.labelled', { label: t(`devices.identity.${field}`), text: constraints[field] })}
          </List.Item>
        ))}
    </List>
  );
}

function ParameterTable({
  parameters,
  caption,
  none,
}: {
  parameters: (TDeviceParameter | TQualityParameter)[];
  caption: string;
  none: string;
}) {
  const { t } = useTranslation();
  if (parameters.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {none}
      </Text>
    );
  const values = (parameter: TDeviceParameter | TQualityParameter) =>
    (parameter.valueList && parameter.valueList.length > 0 ? parameter.valueList : [parameter.resetValue])
      .filter((value) => value !== undefined)
      .map(String);
  return (
    <DataTable
      bordered
      minWidth={640}
      caption={caption}
      columns={[
        t('orders.parameters.id'),
        t('orders.parameters.type'),
        t('orders.parameters.adjust'),
        t('orders.parameters.range'),
        t('orders.parameters.choiceList'),
        t('orders.parameters.values'),
      ]}
    >
      {parameters.map((parameter) => {
        const id = 'parameterId' in parameter ? parameter.parameterId : parameter.id;
        return (
          <Table.Tr key={id}>
            <Table.Td>
              <Code>{id}</Code>
            </Table.Td>
            <Table.Td>{parameter.type}</Table.Td>
            <Table.Td>{parameter.adjust}</Table.Td>
            <Table.Td>
              {parameter.low !== undefined || parameter.high !== undefined
                ? `${parameter.low ?? '…'} – ${parameter.high ?? '…'}`
                : '—'}
            </Table.Td>
            <Table.Td>{parameter.choiceList ? formatList(t, parameter.choiceList.map(String)) : '—'}</Table.Td>
            <Table.Td>{formatList(t, values(parameter)) || '—'}</Table.Td>
          </Table.Tr>
        );
      })}
    </DataTable>
  );
}

function History({ order, canSeeAudit }: { order: TOrderDetail; canSeeAudit: boolean }) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  if (order.history.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {t('orders.history.empty')}
      </Text>
    );
  return (
    <Stack gap="xs">
      <DataTable
        compact
        testId="order-history"
        minWidth={640}
        caption={
          order.historyTruncated
            ? t('orders.history.captionLatest', { count: order.history.length })
            : t('orders.history.caption', { count: order.history.length })
        }
        columns={[t('orders.history.date'), t('orders.history.event'), t('orders.history.actor'), t('orders.history.subject')]}
      >
        {order.history.map((entry, index) => (
          <Table.Tr key={`${entry.dateCreated}-${index}`} data-event={entry.eventType}>
            <Table.Td>
              <time dateTime={entry.dateCreated}>{format(entry.dateCreated)}</time>
            </Table.Td>
            <Table.Td>
              {t([`orders.history.events.${entry.eventType}`, `auditKinds.${entry.eventType}`], {
                defaultValue: entry.eventType,
              })}
            </Table.Td>
            <Table.Td>{entry.actor ?? '—'}</Table.Td>
            <Table.Td>{entry.subject ? <Code title={entry.subject}>{entry.subject.slice(0, 8)}</Code> : '—'}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {order.historyTruncated && canSeeAudit ? (
        <Anchor
          component={Link}
          to={`/audit?subject=${encodeURIComponent(order.orderId)}`}
          c="var(--manifold-link)"
          w="fit-content"
          size="sm"
          data-testid="order-history-all"
        >
          {t('orders.history.allInAudit')}
        </Anchor>
      ) : null}
    </Stack>
  );
}

/** One order: its licence, remaining quantity, actions, authorizations, groups and history. */
export function OrderRoute() {
  const { t } = useTranslation();
  const { orderId = '' } = useParams();
  const format = useDateTimeFormat();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const order = useOrder(orderId, page);
  usePageInRange(paging, { data: order.data?.authorizations, isPlaceholderData: order.isPlaceholderData });
  const session = useQuery(sessionQueryOptions());
  const canEditGroups = roleCan(session.data?.userProfile.role, 'POST /ui/order/edit-groups');
  const data = order.data;

  return (
    <Stack gap="lg">
      <PageHead title={data ? t('orders.detailTitle', { number: data.orderNumber }) : t('orders.title')} />
      <Anchor component={Link} to="/orders" c="var(--manifold-link)" w="fit-content">
        <Group gap={4}>
          <IconArrowLeft size={16} aria-hidden />
          {t('orders.back')}
        </Group>
      </Anchor>
      {order.error ? <ErrorAlert>{apiErrorMessage(t, order.error)}</ErrorAlert> : null}
      {order.isPending ? <PageLoader /> : null}
      {data ? (
        <>
          <Group justify="space-between" align="flex-start">
            <Stack gap={4}>
              <Title order={1}>{t('orders.detailTitle', { number: data.orderNumber })}</Title>
              <OrderStateBadges order={data} />
            </Stack>
            <Card withBorder padding="sm" data-testid="remaining-quantity" aria-label={t('orders.remaining')}>
              <Text size="xs" c="dimmed">
                {t('orders.remaining')}
              </Text>
              <Text size="xl" fw={700} data-testid="remaining-quantity-value">
                {data.remainingQuantity}
              </Text>
              <Text size="xs" c="dimmed">
                {t('orders.quantityBreakdown', {
                  quantity: data.quantity,
                  allocated: data.allocatedQuantity,
                  expired: data.expiredQuantity,
                })}
              </Text>
            </Card>
          </Group>
          <OrderActions order={data} />
          <Section id="order-authorizations" title={t('orders.sections.authorizations')}>
            <AuthorizationTable
              authorizations={data.authorizations.data}
              busy={order.isFetching}
              caption={t('authorizations.caption', { total: data.authorizations.totalNumOfItems })}
            />
            <ListPagination total={data.authorizations.totalNumOfPages} value={page} onChange={setPage} />
          </Section>
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <Section id="order-licence" title={t('orders.sections.licence')}>
              <DetailRows
                rows={[
                  [t('orders.fields.orderId'), <Code key="id">{data.orderId}</Code>],
                  [t('orders.fields.companyName'), data.companyName],
                  [t('orders.fields.sourceCompanyName'), data.sourceCompanyName],
                  [
                    t('orders.fields.design'),
                    <Anchor key="design" component={Link} to={`/packages/${data.dsi.dsiId}`} c="var(--manifold-link)">
                      {t('orders.designOf', { name: data.dsi.designName, version: data.dsi.dsiVersion })}
                    </Anchor>,
                  ],
                  [t('orders.fields.digest'), <Code key="digest">{data.digestValue}</Code>],
                  [t('orders.fields.quantity'), String(data.quantity)],
                  [
                    t('orders.fields.expiration'),
                    data.expiration ? (
                      <time dateTime={data.expiration}>{format(data.expiration)}</time>
                    ) : (
                      t('orders.neverExpires')
                    ),
                  ],
                  [t('orders.fields.purpose'), data.purpose],
                  [
                    t('orders.fields.breakage'),
                    data.breakage.value === null
                      ? t(`orders.breakage.${data.breakage.policy}`)
                      : `${t(`orders.breakage.${data.breakage.policy}`)} (${data.breakage.value})`,
                  ],
                  [
                    t('orders.fields.serialization'),
                    data.serialization
                      ? t('orders.serialization', {
                          type: data.serialization.type,
                          prefix: data.serialization.prefix,
                          start: data.serialization.start,
                          end: data.serialization.end,
                          next: data.serialization.next,
                        })
                      : null,
                  ],
                  [t('orders.fields.authorizedUsers'), formatList(t, data.authorizedUserList) || t('orders.anyUser')],
                ]}
              />
            </Section>
            <Section id="order-source" title={t('orders.sections.source')}>
              <DetailRows
                rows={[
                  [t('orders.fields.addedBy'), data.userID],
                  [t('orders.fields.source'), t(`orders.sources.${data.source}`)],
                  [
                    t('orders.fields.dateCreated'),
                    <time key="created" dateTime={data.dateCreated}>
                      {format(data.dateCreated)}
                    </time>,
                  ],
                  [t('orders.fields.licenseeKeySN'), <Code key="licensee">{data.licenseeKeySN}</Code>],
                  [t('orders.fields.keyRoleSN'), data.keyRoleSN],
                  [t('orders.fields.publicKeySN'), data.publicKeySN],
                  [
                    t('orders.fields.deviceIdentity'),
                    data.deviceIdentity ? (
                      <MachineConstraints key="machine" constraints={data.deviceIdentity} />
                    ) : (
                      t('orders.anyMachine')
                    ),
                  ],
                  [t('orders.fields.parameterVersion'), data.parameterVersion],
                  [
                    t('orders.fields.dateRevoked'),
                    data.dateRevoked ? <time dateTime={data.dateRevoked}>{format(data.dateRevoked)}</time> : null,
                  ],
                ]}
              />
            </Section>
          </SimpleGrid>
          <Section id="order-parameters" title={t('orders.sections.parameters')}>
            <Stack>
              <ParameterTable
                parameters={data.deviceParameters}
                caption={t('orders.parameters.deviceCaption')}
                none={t('orders.parameters.noDevice')}
              />
              <ParameterTable
                parameters={data.qualityParameters}
                caption={t('orders.parameters.qualityCaption')}
                none={t('orders.parameters.noQuality')}
              />
            </Stack>
          </Section>
          <Section id="order-groups" title={t('orders.sections.groups')}>
            <OrderGroups key={data.groupIds.join(',')} order={data} canEdit={canEditGroups} />
          </Section>
          <Section id="order-history" title={t('orders.sections.history')}>
            <History order={data} canSeeAudit={roleCan(session.data?.userProfile.role, 'GET /ui/audit/list')} />
          </Section>
        </>
      ) : null}
    </Stack>
  );
}

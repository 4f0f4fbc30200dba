import { Badge, Button, Stack, Table, Text } from '@mantine/core';
import type { TLoginThrottleEntry } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { ListPagination } from '../../../components/list-pagination';
import { Section } from '../../../components/section';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { useClearLoginThrottle, useLoginThrottle } from '../api/login-throttle';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/**
 * Failed-login counters (ADMIN): which accounts and addresses are held back, until when, and a
 * way to let one try again at once (docs/api.md, failed logins).
 */
export function HeldBackLogins() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const formatDateTime = useDateTimeFormat();
  const paging = usePagedSearch({ pageParam: 'loginsPage' });
  const { page, setPage } = paging;
  const counters = useLoginThrottle({ pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, counters);
  const clear = useClearLoginThrottle();
  const now = new Date().toISOString();

  const who = (entry: TLoginThrottleEntry) =>
    [entry.username, entry.sourceIp].filter((part): part is string => part !== null).join(' · ');

  const confirmClear = (entry: TLoginThrottleEntry) =>
    confirm({
      title: t('loginThrottle.clearTitle'),
      message: t('loginThrottle.clearConfirm', { who: who(entry) }),
      confirmLabel: t('loginThrottle.clear'),
      onConfirm: () =>
        clear.mutate(entry.key, {
          onSuccess: () => alerts.success(t('loginThrottle.cleared', { who: who(entry) })),
          onError: (error) => alerts.error(apiErrorMessage(t, error)),
        }),
    });

  return (
    <Section id="held-back-logins" title={t('loginThrottle.title')}>
      <Stack gap="sm">
        <Text size="sm">{t('loginThrottle.description')}</Text>
        {counters.error ? <ErrorAlert>{apiErrorMessage(t, counters.error)}</ErrorAlert> : null}
        <DataTable
          testId="login-throttle-table"
          compact
          minWidth={640}
          busy={counters.isFetching}
          caption={t('loginThrottle.caption', { count: counters.data?.totalNumOfItems ?? 0 })}
          columns={[
            t('loginThrottle.kind'),
            t('loginThrottle.who'),
            t('loginThrottle.failures'),
            t('loginThrottle.notBefore'),
            t('common.actions'),
          ]}
          empty={counters.data?.data.length === 0 ? t('loginThrottle.empty') : null}
        >
          {(counters.data?.data ?? []).map((entry) => {
            const held = entry.notBefore !== null && entry.notBefore > now;
            return (
              <Table.Tr key={entry.key} data-throttle-key={entry.key}>
                <Table.Td>{t(`loginThrottle.kinds.${entry.kind}`)}</Table.Td>
                <Table.Td>{who(entry)}</Table.Td>
                <Table.Td>{entry.failures}</Table.Td>
                <Table.Td>
                  {held ? (
                    <Badge color="red" variant="light" c="var(--manifold-danger)">
                      <time dateTime={entry.notBefore!}>{formatDateTime(entry.notBefore!)}</time>
                    </Badge>
                  ) : (
                    t('loginThrottle.notHeld')
                  )}
                </Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="light"
                    onClick={() => confirmClear(entry)}
                    aria-label={t('loginThrottle.clearFor', { who: who(entry) })}
                  >
                    {t('loginThrottle.clear')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </DataTable>
        <ListPagination total={pageCount(counters.data)} value={page} onChange={setPage} />
      </Stack>
    </Section>
  );
}

import { Button, Group, Stack } from '@mantine/core';
import type { TGroup, TOrderDetail } from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { SearchMultiSelect, type SearchSource } from '../../../components/search-select';
import { alerts } from '../../../lib/alerts';
import { groupOption, groupPickerQueryOptions } from '../../../lib/pickers';
import { useEditOrderGroups } from '../api/edit-order-groups';
import { ErrorAlert } from '../../../components/error-alert';

const groups: SearchSource<TGroup> = { queryOptions: groupPickerQueryOptions, toOption: groupOption };

/** The groups an order is shared with (its USERs see it); ADMINs change them. */
export function OrderGroups({ order, canEdit }: { order: TOrderDetail; canEdit: boolean }) {
  const { t } = useTranslation();
  const edit = useEditOrderGroups();
  const [selected, setSelected] = useState<string[]>(order.groupIds.map(String));
  const [error, setError] = useState<string | null>(null);
  const changed = [...selected].sort().join(',') !== order.groupIds.map(String).sort().join(',');

  const save = () => {
    setError(null);
    edit.mutate(
      { orderId: order.orderId, groupIds: selected.map(Number) },
      {
        onSuccess: () => alerts.success(t('orders.groups.saved')),
        onError: (caught) => setError(apiErrorMessage(t, caught)),
      },
    );
  };

  return (
    <Stack>
      {error ? <ErrorAlert>{error}</ErrorAlert> : null}
      <SearchMultiSelect
        source={groups}
        label={t('orders.groups.label')}
        description={t('orders.groups.help')}
        value={selected}
        readOnly={!canEdit}
        onChange={setSelected}
      />
      {canEdit ? (
        <Group>
          <Button onClick={save} loading={edit.isPending} disabled={!changed}>
            {t('orders.groups.save')}
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}

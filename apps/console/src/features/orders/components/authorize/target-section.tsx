import { SegmentedControl, Select, Stack, Text } from '@mantine/core';
import type { TDevice } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import type { Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchSelect, type SearchSource } from '../../../../components/search-select';
import { Section } from '../../../../components/section';
import { approvedDownstreamManageQueryOptions, deviceOption, manageOption } from '../../../../lib/pickers';
import { approvedDevicesQueryOptions } from '../../api/get-approved-devices';
import type { AuthorizeAction, AuthorizeState } from './authorize-state';

const machines: SearchSource<TDevice> = {
  queryOptions: approvedDevicesQueryOptions,
  toOption: deviceOption,
  include: (device) => !device.disabled,
};

/** A machine (searched on the server among the approved ones) or a downstream Manage instance. */
export function TargetSection({ state, dispatch }: { state: AuthorizeState; dispatch: Dispatch<AuthorizeAction> }) {
  const { t } = useTranslation();
  return (
    <Section id="authorize-target" title={t('orders.authorize.target')}>
      <Stack>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="authorize-target-kind">
            {t('orders.authorize.targetKind')}
          </Text>
          <SegmentedControl
            aria-labelledby="authorize-target-kind"
            value={state.target}
            data={[
              { value: 'device', label: t('orders.authorize.machine') },
              { value: 'manage', label: t('orders.authorize.manageInstance') },
            ]}
            onChange={(value) => dispatch({ type: 'target', target: value === 'manage' ? 'manage' : 'device' })}
            w="fit-content"
          />
        </Stack>
        {state.target === 'device' ? (
          <SearchSelect
            source={machines}
            label={t('orders.authorize.machine')}
            withAsterisk
            value={state.deviceId}
            error={state.errors.fields.deviceId}
            nothingFoundMessage={t('orders.authorize.noMachines')}
            description={t('orders.authorize.machineHelp')}
            onChange={(deviceId) => dispatch({ type: 'device', deviceId })}
          />
        ) : (
          <ManagePicker state={state} dispatch={dispatch} />
        )}
      </Stack>
    </Section>
  );
}

/** An approved downstream Manage instance, picked from the registrations (Network screens). */
function ManagePicker({ state, dispatch }: { state: AuthorizeState; dispatch: Dispatch<AuthorizeAction> }) {
  const { t } = useTranslation();
  const instances = useQuery(approvedDownstreamManageQueryOptions());
  return (
    <Select
      label={t('orders.authorize.manageId')}
      withAsterisk
      searchable
      value={state.manageId === '' ? null : state.manageId}
      data={(instances.data ?? []).map(manageOption)}
      error={state.errors.fields.manageId}
      description={t('orders.authorize.manageHelp')}
      nothingFoundMessage={instances.isFetching ? t('common.loading') : t('orders.authorize.noManage')}
      onChange={(manageId) => dispatch({ type: 'manageId', manageId: manageId ?? '' })}
    />
  );
}

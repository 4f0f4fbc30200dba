import { SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import type { TDevice } from '@manifold/contract';
import type { Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchSelect, type SearchSource } from '../../../../components/search-select';
import { Section } from '../../../../components/section';
import { deviceOption } from '../../../../lib/pickers';
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
          <TextInput
            label={t('orders.authorize.manageId')}
            withAsterisk
            value={state.manageId}
            error={state.errors.fields.manageId}
            description={t('orders.authorize.manageHelp')}
            onChange={(event) => dispatch({ type: 'manageId', manageId: event.currentTarget.value })}
          />
        )}
      </Stack>
    </Section>
  );
}

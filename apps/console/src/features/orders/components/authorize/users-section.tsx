import { MultiSelect } from '@mantine/core';
import type { TOrderDetail, TUserProfile } from '@manifold/contract';
import type { Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchMultiSelect, type SearchSource } from '../../../../components/search-select';
import { Section } from '../../../../components/section';
import { userOption } from '../../../../lib/pickers';
import { userOptionsQueryOptions } from '../../api/get-user-options';
import type { AuthorizeAction, AuthorizeState } from './authorize-state';

const users: SearchSource<TUserProfile> = { queryOptions: userOptionsQueryOptions, toOption: userOption };

interface UsersSectionProps {
  order: TOrderDetail;
  state: AuthorizeState;
  dispatch: Dispatch<AuthorizeAction>;
}

/** Authorized users: among the order's own when it names some, else any user (searched on the server). */
export function UsersSection({ order, state, dispatch }: UsersSectionProps) {
  const { t } = useTranslation();
  const common = {
    label: t('orders.authorize.authorizedUsers'),
    value: state.authorizedUsers,
    error: state.errors.fields.authorizedUserList,
    onChange: (selected: string[]) => dispatch({ type: 'authorizedUsers', users: selected }),
  };
  return (
    <Section id="authorize-users" title={t('orders.authorize.users')}>
      {order.authorizedUserList.length > 0 ? (
        <MultiSelect
          {...common}
          description={t('orders.authorize.usersOfOrder')}
          searchable
          data={[...new Set([...order.authorizedUserList, ...state.authorizedUsers])]}
          nothingFoundMessage={t('common.nothingFound')}
          comboboxProps={{ withinPortal: true }}
        />
      ) : (
        <SearchMultiSelect {...common} source={users} description={t('orders.authorize.usersAny')} />
      )}
    </Section>
  );
}

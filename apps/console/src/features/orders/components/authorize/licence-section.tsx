import { NumberInput, SimpleGrid, TextInput } from '@mantine/core';
import type { TOrderDetail } from '@manifold/contract';
import type { Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import { Section } from '../../../../components/section';
import { wallTimeOf } from '../expiry';
import type { AuthorizeAction, AuthorizeState } from './authorize-state';

interface LicenceProps {
  order: TOrderDetail;
  state: AuthorizeState;
  dispatch: Dispatch<AuthorizeAction>;
}

/** How many of what is left on the order. */
export function QuantityInput({ order, state, dispatch }: LicenceProps) {
  const { t } = useTranslation();
  return (
    <NumberInput
      label={t('orders.authorize.quantity')}
      withAsterisk
      min={1}
      max={Math.max(1, order.remainingQuantity)}
      allowDecimal={false}
      allowNegative={false}
      value={state.quantity}
      error={state.errors.fields.quantity}
      description={t('orders.authorize.quantityLeft', { remaining: order.remainingQuantity, quantity: order.quantity })}
      onChange={(value) => dispatch({ type: 'quantity', quantity: typeof value === 'number' ? value : '' })}
    />
  );
}

/** An expiry in the user's time zone, between now and the order's own expiry. */
export function ExpiryInput({ order, state, dispatch, timeZone }: LicenceProps & { timeZone: string }) {
  const { t } = useTranslation();
  const maxWallTime = order.expiration ? wallTimeOf(Date.parse(order.expiration), timeZone) : undefined;
  return (
    <TextInput
      type="datetime-local"
      label={t('orders.authorize.expiration')}
      value={state.expiration}
      min={wallTimeOf(Date.now(), timeZone)}
      max={maxWallTime}
      error={state.errors.fields.expiration}
      description={
        maxWallTime ? t('orders.authorize.expirationBounded', { timeZone }) : t('orders.authorize.expirationFree', { timeZone })
      }
      onChange={(event) => dispatch({ type: 'expiration', expiration: event.currentTarget.value })}
    />
  );
}

export function LicenceSection(props: LicenceProps & { timeZone: string }) {
  const { t } = useTranslation();
  return (
    <Section id="authorize-licence" title={t('orders.authorize.licence')}>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <QuantityInput {...props} />
        <ExpiryInput {...props} />
      </SimpleGrid>
    </Section>
  );
}

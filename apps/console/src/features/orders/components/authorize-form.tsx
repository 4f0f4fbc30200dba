import { Stack } from '@mantine/core';
import type { TAuthorizeRequest, TOrderDetail } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useReducer, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormButtons } from '../../../components/form-buttons';
import { sessionQueryOptions } from '../../../lib/session';
import { useDeviceParameters } from '../api/get-approved-devices';
import { authorizeErrorsFrom } from './authorize-errors';
import {
  authorizeReducer,
  authorizeRequestOf,
  initialAuthorizeState,
  noErrors,
  unnamedTrackingRows,
} from './authorize/authorize-state';
import { LicenceSection } from './authorize/licence-section';
import { ParametersSection } from './authorize/parameters-section';
import { TargetSection } from './authorize/target-section';
import { TrackingSection } from './authorize/tracking-section';
import { UsersSection } from './authorize/users-section';
import { browserTimeZone } from './expiry';
import { deviceParameterFields, qualityParameterFields } from './parameter-fields';
import { FormGeneralErrors } from '../../../components/form-fields';

export interface AuthorizeFormProps {
  order: TOrderDetail;
  /** Sends the request; rejects with the server's error. */
  submit: (request: TAuthorizeRequest) => Promise<unknown>;
  onDone: (authorizationId: string | undefined) => void;
  onCancel: () => void;
  pending: boolean;
}

function authorizationIdOf(result: unknown): string | undefined {
  return typeof result === 'object' &&
    result !== null &&
    'authorizationId' in result &&
    typeof result.authorizationId === 'string'
    ? result.authorizationId
    : undefined;
}

/**
 * Authorizes part of an order for a machine or a downstream Manage instance: quantity out of what
 * is left, an expiry no later than the order's, parameters inside the order's and the machine's
 * bounds, quality parameters, tracking fields and authorized users. Every problem the server
 * reports is shown on its input at once. The state lives in one reducer; each section is its
 * own component.
 */
export function AuthorizeForm({ order, submit, onDone, onCancel, pending }: AuthorizeFormProps) {
  const { t } = useTranslation();
  const session = useQuery(sessionQueryOptions());
  const timeZone = session.data?.userProfile.timeZone ?? browserTimeZone();
  const [state, dispatch] = useReducer(authorizeReducer, order, initialAuthorizeState);

  const device = useDeviceParameters(state.target === 'device' ? state.deviceId : null);
  const machineParameters = useMemo(
    () => (state.target === 'device' ? (device.data?.parameters ?? []) : []),
    [state.target, device.data],
  );
  const deviceFields = useMemo(
    () => deviceParameterFields(order.deviceParameters, machineParameters),
    [order.deviceParameters, machineParameters],
  );
  const qualityFields = useMemo(() => qualityParameterFields(order.qualityParameters), [order.qualityParameters]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const unnamed = unnamedTrackingRows(state.tracking);
    if (unnamed.length > 0) {
      const fields = Object.fromEntries(unnamed.map((key) => [key, t('orders.authorize.fieldNameRequired')]));
      dispatch({ type: 'errors', errors: { fields, general: [] } });
      return;
    }
    dispatch({ type: 'errors', errors: noErrors });
    const request = authorizeRequestOf(state, { order, deviceFields, qualityFields, machineParameters, timeZone });
    const sent = {
      deviceParameterIds: request.deviceParameters.map((parameter) => parameter.parameterId),
      qualityParameterIds: request.qualityParameters.map((parameter) => parameter.id),
    };
    submit(request).then(
      (result) => onDone(authorizationIdOf(result)),
      (error: unknown) => dispatch({ type: 'errors', errors: authorizeErrorsFrom(t, error, sent) }),
    );
  };

  return (
    <form onSubmit={onSubmit} noValidate aria-label={t('orders.authorize.title')} data-testid="authorize-form">
      <Stack>
        <FormGeneralErrors errors={state.errors} testId="authorize-form-error" />
        <TargetSection state={state} dispatch={dispatch} />
        <LicenceSection order={order} state={state} dispatch={dispatch} timeZone={timeZone} />
        <ParametersSection group="device" fields={deviceFields} state={state} dispatch={dispatch} />
        <ParametersSection group="quality" fields={qualityFields} state={state} dispatch={dispatch} />
        <TrackingSection state={state} dispatch={dispatch} />
        <UsersSection order={order} state={state} dispatch={dispatch} />
        <FormButtons onCancel={onCancel} pending={pending} submitLabel={t('orders.authorize.submit')} />
      </Stack>
    </form>
  );
}

import {
  ActionIcon,
  Alert,
  Button,
  Group,
  MultiSelect,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import type { TAuthorizeRequest, TDeviceParameterValue, TOrderDetail } from '@manifold/contract';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { FormErrors } from '../../../components/api-error-message';
import { sessionQueryOptions } from '../../../lib/session';
import { useApprovedDevices, useDeviceParameters } from '../api/get-approved-devices';
import { useUserOptions } from '../api/get-user-options';
import { authorizeErrorsFrom } from './authorize-errors';
import { browserTimeZone, epochOfWallTime, wallTimeOf } from './expiry';
import { ParameterEditor, type ParameterValues } from './parameter-editor';
import {
  deviceParameterFields,
  narrowedDeviceParameter,
  narrowedQualityParameter,
  qualityParameterFields,
} from './parameter-fields';
import { Section } from '../../../components/section';

type Target = 'device' | 'manage';

interface TrackingRow {
  key: number;
  fieldName: string;
  fieldValue: string;
}

const noErrors: FormErrors = { fields: {}, general: [] };

export interface AuthorizeFormProps {
  order: TOrderDetail;
  /** Sends the request; rejects with the server's error. */
  submit: (request: TAuthorizeRequest) => Promise<unknown>;
  onDone: (authorizationId: string | undefined) => void;
  onCancel: () => void;
  pending: boolean;
}

/**
 * Authorizes part of an order for a machine or a downstream Manage instance: quantity out of what
 * is left, an expiry no later than the order's, parameters inside the order's and the machine's
 * bounds, quality parameters, tracking fields and authorized users. Every problem the server
 * reports is shown on its input at once.
 */
export function AuthorizeForm({ order, submit, onDone, onCancel, pending }: AuthorizeFormProps) {
  const { t } = useTranslation();
  const session = useQuery(sessionQueryOptions());
  const timeZone = session.data?.userProfile.timeZone ?? browserTimeZone();
  const devices = useApprovedDevices();
  const users = useUserOptions();

  const [target, setTarget] = useState<Target>('device');
  const [deviceId, setDeviceId] = useState<string | null>(null);
  const [manageId, setManageId] = useState('');
  const [quantity, setQuantity] = useState<number | ''>(order.remainingQuantity > 0 ? 1 : '');
  const [expiration, setExpiration] = useState('');
  const [deviceValues, setDeviceValues] = useState<ParameterValues>({});
  const [qualityValues, setQualityValues] = useState<ParameterValues>({});
  const [tracking, setTracking] = useState<TrackingRow[]>([]);
  const [nextRow, setNextRow] = useState(0);
  const [authorizedUsers, setAuthorizedUsers] = useState<string[]>([]);
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  const device = useDeviceParameters(target === 'device' ? deviceId : null);
  const machineParameters = useMemo(() => (target === 'device' ? (device.data?.parameters ?? []) : []), [target, device.data]);
  const deviceFields = useMemo(
    () => deviceParameterFields(order.deviceParameters, machineParameters),
    [order.deviceParameters, machineParameters],
  );
  const qualityFields = useMemo(() => qualityParameterFields(order.qualityParameters), [order.qualityParameters]);

  const deviceOptions = (devices.data?.data ?? [])
    .filter((candidate) => !candidate.disabled)
    .map((candidate) => ({
      value: candidate.deviceId,
      label: `${candidate.deviceIdentity.name} (${candidate.deviceIdentity.serialNumber})`,
    }));
  const userChoices =
    order.authorizedUserList.length > 0 ? order.authorizedUserList : (users.data?.data ?? []).map((user) => user.username);

  const maxWallTime = order.expiration ? wallTimeOf(Date.parse(order.expiration), timeZone) : undefined;
  const minWallTime = wallTimeOf(Date.now(), timeZone);

  const buildRequest = (): TAuthorizeRequest => {
    const deviceParameters = deviceFields.flatMap((field) => {
      const value = deviceValues[field.key];
      if (value === undefined || field.bounds.lockedValue !== undefined) return [];
      const parents = [
        order.deviceParameters.find((parameter) => parameter.parameterId === field.id),
        machineParameters.find((parameter) => parameter.parameterId === field.id),
      ].filter((parent) => parent !== undefined);
      return [narrowedDeviceParameter(field, parents, value)];
    });
    const qualityParameters = qualityFields.flatMap((field) => {
      const value = qualityValues[field.key];
      const parent = order.qualityParameters.find((quality) => quality.id === field.id);
      if (value === undefined || parent === undefined || field.bounds.lockedValue !== undefined) return [];
      return [narrowedQualityParameter(field, parent, value)];
    });
    const expiry = expiration === '' ? undefined : epochOfWallTime(expiration, timeZone);
    return {
      orderId: order.orderId,
      ...(target === 'device' ? { deviceId } : { manageId: manageId.trim() || null }),
      quantity: quantity === '' ? null : quantity,
      expiration: expiry ?? null,
      authorizedUserList: authorizedUsers,
      tracking: tracking
        .filter((row) => row.fieldName.trim() !== '' || row.fieldValue !== '')
        .map(({ fieldName, fieldValue }) => ({ fieldName, fieldValue })),
      deviceParameters,
      qualityParameters,
    };
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const unnamed = tracking.flatMap((row, index) =>
      row.fieldName.trim() === '' && row.fieldValue !== '' ? [`tracking.${index}`] : [],
    );
    if (unnamed.length > 0) {
      setErrors({
        fields: Object.fromEntries(unnamed.map((key) => [key, t('orders.authorize.fieldNameRequired')])),
        general: [],
      });
      return;
    }
    setErrors(noErrors);
    const request = buildRequest();
    const sent = {
      deviceParameterIds: request.deviceParameters.map((parameter) => parameter.parameterId),
      qualityParameterIds: request.qualityParameters.map((parameter) => parameter.id),
    };
    submit(request).then(
      (result) => {
        const id =
          typeof result === 'object' &&
          result !== null &&
          'authorizationId' in result &&
          typeof result.authorizationId === 'string'
            ? result.authorizationId
            : undefined;
        onDone(id);
      },
      (error: unknown) => setErrors(authorizeErrorsFrom(t, error, sent)),
    );
  };

  const setValue = (setter: typeof setDeviceValues) => (key: string, value: TDeviceParameterValue | undefined) =>
    setter((previous) => ({ ...previous, [key]: value }));

  return (
    <form onSubmit={onSubmit} noValidate aria-label={t('orders.authorize.title')} data-testid="authorize-form">
      <Stack>
        {errors.general.length > 0 ? (
          <Alert color="red" variant="light" role="alert" data-testid="authorize-form-error">
            <Text size="sm">{errors.general.join(' ')}</Text>
          </Alert>
        ) : null}
        <Section id="authorize-target" title={t('orders.authorize.target')}>
          <Stack>
            <Stack gap={4}>
              <Text size="sm" fw={500} id="authorize-target-kind">
                {t('orders.authorize.targetKind')}
              </Text>
              <SegmentedControl
                aria-labelledby="authorize-target-kind"
                value={target}
                data={[
                  { value: 'device', label: t('orders.authorize.machine') },
                  { value: 'manage', label: t('orders.authorize.manageInstance') },
                ]}
                onChange={(value) => setTarget(value === 'manage' ? 'manage' : 'device')}
                w="fit-content"
              />
            </Stack>
            {target === 'device' ? (
              <Select
                label={t('orders.authorize.machine')}
                withAsterisk
                searchable
                data={deviceOptions}
                value={deviceId}
                error={errors.fields.deviceId}
                nothingFoundMessage={t('orders.authorize.noMachines')}
                description={t('orders.authorize.machineHelp')}
                comboboxProps={{ withinPortal: true }}
                onChange={(value) => {
                  setDeviceId(value);
                  setDeviceValues({});
                }}
              />
            ) : (
              <TextInput
                label={t('orders.authorize.manageId')}
                withAsterisk
                value={manageId}
                error={errors.fields.manageId}
                description={t('orders.authorize.manageHelp')}
                onChange={(event) => setManageId(event.currentTarget.value)}
              />
            )}
          </Stack>
        </Section>
        <Section id="authorize-licence" title={t('orders.authorize.licence')}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NumberInput
              label={t('orders.authorize.quantity')}
              withAsterisk
              min={1}
              max={Math.max(1, order.remainingQuantity)}
              allowDecimal={false}
              allowNegative={false}
              value={quantity}
              error={errors.fields.quantity}
              description={t('orders.authorize.quantityLeft', {
                remaining: order.remainingQuantity,
                quantity: order.quantity,
              })}
              onChange={(value) => setQuantity(typeof value === 'number' ? value : '')}
            />
            <TextInput
              type="datetime-local"
              label={t('orders.authorize.expiration')}
              value={expiration}
              min={minWallTime}
              max={maxWallTime}
              error={errors.fields.expiration}
              description={
                maxWallTime
                  ? t('orders.authorize.expirationBounded', { timeZone })
                  : t('orders.authorize.expirationFree', { timeZone })
              }
              onChange={(event) => setExpiration(event.currentTarget.value)}
            />
          </SimpleGrid>
        </Section>
        <Section id="authorize-parameters" title={t('orders.authorize.deviceParameters')}>
          <ParameterEditor
            fields={deviceFields}
            values={deviceValues}
            onChange={setValue(setDeviceValues)}
            errors={errors.fields}
          />
        </Section>
        <Section id="authorize-quality" title={t('orders.authorize.qualityParameters')}>
          <ParameterEditor
            fields={qualityFields}
            values={qualityValues}
            onChange={setValue(setQualityValues)}
            errors={errors.fields}
          />
        </Section>
        <Section id="authorize-tracking" title={t('orders.authorize.tracking')}>
          <Stack>
            {errors.fields.tracking ? (
              <Text size="sm" c="red.8" role="alert">
                {errors.fields.tracking}
              </Text>
            ) : null}
            {tracking.map((row, index) => (
              <Group key={row.key} align="flex-start" wrap="nowrap">
                <TextInput
                  label={t('orders.authorize.fieldName', { row: index + 1 })}
                  value={row.fieldName}
                  error={errors.fields[`tracking.${index}`]}
                  onChange={(event) => {
                    const fieldName = event.currentTarget.value;
                    setTracking((rows) =>
                      rows.map((candidate) => (candidate.key === row.key ? { ...candidate, fieldName } : candidate)),
                    );
                  }}
                />
                <TextInput
                  label={t('orders.authorize.fieldValue', { row: index + 1 })}
                  value={row.fieldValue}
                  onChange={(event) => {
                    const fieldValue = event.currentTarget.value;
                    setTracking((rows) =>
                      rows.map((candidate) => (candidate.key === row.key ? { ...candidate, fieldValue } : candidate)),
                    );
                  }}
                />
                <ActionIcon
                  mt={28}
                  variant="subtle"
                  color="red"
                  aria-label={t('orders.authorize.removeField', { row: index + 1 })}
                  onClick={() => setTracking((rows) => rows.filter((candidate) => candidate.key !== row.key))}
                >
                  <IconTrash size={16} aria-hidden />
                </ActionIcon>
              </Group>
            ))}
            <Button
              variant="default"
              w="fit-content"
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={() => {
                setTracking((rows) => [...rows, { key: nextRow, fieldName: '', fieldValue: '' }]);
                setNextRow((value) => value + 1);
              }}
            >
              {t('orders.authorize.addField')}
            </Button>
          </Stack>
        </Section>
        <Section id="authorize-users" title={t('orders.authorize.users')}>
          <MultiSelect
            label={t('orders.authorize.authorizedUsers')}
            description={
              order.authorizedUserList.length > 0 ? t('orders.authorize.usersOfOrder') : t('orders.authorize.usersAny')
            }
            searchable
            data={[...new Set([...userChoices, ...authorizedUsers])]}
            value={authorizedUsers}
            error={errors.fields.authorizedUserList}
            nothingFoundMessage={t('common.nothingFound')}
            comboboxProps={{ withinPortal: true }}
            onChange={setAuthorizedUsers}
          />
        </Section>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={pending}>
            {t('orders.authorize.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

import { ModalsProvider } from '@mantine/modals';
import type { TAuthorizeRequest } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { errorFromResponse } from '../../../lib/api-errors';
import { approvedDownstreamManageQueryOptions } from '../../../lib/pickers';
import { orderDetail } from '../../../test/order';
import { seedAdminSession } from '../../../test/session';
import { renderWithProviders, testI18n } from '../../../test/render';
import { approvedDevicesQueryOptions } from '../api/get-approved-devices';
import { userOptionsQueryOptions } from '../api/get-user-options';
import { authorizeErrorsFrom, authorizeFieldOf } from './authorize-errors';
import { AuthorizeForm } from './authorize-form';

const sent = { deviceParameterIds: ['nozzleTemp', 'material'], qualityParameterIds: ['height.mm'] };

describe('authorizeFieldOf', () => {
  it.each([
    ['quantity', 'quantityExceedsAllottedAmount', 'quantity'],
    ['expiration', 'expirationDateIsAfterParentExpirationDate', 'expiration'],
    ['deviceId', 'deviceNotApproved', 'deviceId'],
    ['manageId', 'manageIdNotValid', 'manageId'],
    ['deviceIdentity.serialNumber', 'invalidDeviceSerialNumber', 'deviceId'],
    ['deviceParameters.nozzleTemp.valueList[0]', 'invalidValueOutOfRange', 'deviceParameters.nozzleTemp'],
    ['deviceParameters.material.choiceList', 'parameterBroadensPreexistingParameterSetByDevice', 'deviceParameters.material'],
    ['deviceParameters[1].valueList[0]', 'invalidValueNotFoundInChoiceList', 'deviceParameters.material'],
    ['deviceParameters.bedTemp.valueList', 'authorizationMissingRequiredDeviceParameters', 'deviceParameters.bedTemp'],
    ['qualityParameters.height.mm.valueList[0]', 'invalidValueOutOfRange', 'qualityParameters.height.mm'],
    ['tracking[1].fieldName', 'trackingFieldDuplicate', 'tracking.1'],
    ['authorizedUserList[0]', 'userNotPresent', 'authorizedUserList'],
  ])('places %s (%s) on %s', (field, token, expected) => {
    expect(authorizeFieldOf(field, token, sent)).toBe(expected);
  });

  it('places token-only problems by their token, and order-wide ones nowhere', () => {
    expect(authorizeFieldOf(undefined, 'quantityIsRequired', sent)).toBe('quantity');
    expect(authorizeFieldOf(undefined, 'deviceOrManageIdNotProvided', sent)).toBe('deviceId');
    expect(authorizeFieldOf('orderId', 'orderHasExpired', sent)).toBeUndefined();
  });
});

const multiple = errorFromResponse(418, {
  data: [
    {
      errorToken: 'quantityExceedsAllottedAmount',
      errorDescription: 'The order has 3 left; 5 were asked for',
      field: 'quantity',
    },
    { errorToken: 'expirationDateIsAfterParentExpirationDate', errorDescription: 'After the order', field: 'expiration' },
    { errorToken: 'deviceNotValidForAuthorization', errorDescription: 'Machine does not fit', field: 'deviceId' },
    { errorToken: 'invalidDeviceSerialNumber', errorDescription: 'Serial number differs', field: 'deviceIdentity.serialNumber' },
    {
      errorToken: 'invalidValueOutOfRange',
      errorDescription: 'Nozzle out of range',
      field: 'deviceParameters.nozzleTemp.valueList[0]',
    },
    { errorToken: 'trackingFieldDuplicate', errorDescription: 'Duplicate field', field: 'tracking[1].fieldName' },
    { errorToken: 'userNotPresent', errorDescription: 'No such user', field: 'authorizedUserList[0]' },
    { errorToken: 'orderHasExpired', errorDescription: 'The order has expired', field: 'orderId' },
  ],
});

describe('authorizeErrorsFrom', () => {
  it('maps every problem of a 418 to its input at once', () => {
    const errors = authorizeErrorsFrom(testI18n().t, multiple, sent);
    expect(errors.fields).toEqual({
      quantity: 'The order has 3 left; 5 were asked for',
      expiration: 'After the order',
      deviceId: 'Machine does not fit Serial number differs',
      'deviceParameters.nozzleTemp': 'Nozzle out of range',
      'tracking.1': 'Duplicate field',
      authorizedUserList: 'The user does not exist',
    });
    expect(errors.general).toEqual(['The order has expired']);
  });
});

const order = orderDetail();

function seededClient(): QueryClient {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  seedAdminSession(client);
  client.setQueryData(approvedDevicesQueryOptions().queryKey, {
    data: [],
    pageNum: 1,
    numberOfItems: 500,
    totalNumOfPages: 0,
    totalNumOfItems: 0,
  });
  client.setQueryData(userOptionsQueryOptions().queryKey, {
    data: [],
    pageNum: 1,
    numberOfItems: 500,
    totalNumOfPages: 0,
    totalNumOfItems: 0,
  });
  client.setQueryData(approvedDownstreamManageQueryOptions().queryKey, [
    {
      manageId: '7d1c2b3a-0000-4000-8000-00000000d0d0',
      version: 2,
      dateCreated: '2026-11-20T10:00:00.000Z',
      manageSiteName: 'Downstream Works',
      manageURL: 'https://down.example.com',
      manageType: 'downStreamManage',
      registrationNonce: '7d1c2b3a-0000-4000-8000-00000000aaaa',
      upstream: false,
      registrationState: 'Approved',
      initiator: true,
      cryptoCertsForSigning: [],
      cryptoCertsForEncryption: [],
    },
  ]);
  return client;
}

function renderForm(submit: (request: TAuthorizeRequest) => Promise<unknown>) {
  renderWithProviders(
    <QueryClientProvider client={seededClient()}>
      <ModalsProvider>
        <AuthorizeForm order={order} submit={submit} onDone={() => undefined} onCancel={() => undefined} pending={false} />
      </ModalsProvider>
    </QueryClientProvider>,
  );
}

describe('AuthorizeForm', () => {
  it('sends the request with the expiry in epoch milliseconds and shows every server problem on its input at once', async () => {
    const submit = vi.fn<(request: TAuthorizeRequest) => Promise<unknown>>().mockRejectedValue(multiple);
    renderForm(submit);

    expect(screen.getByText('3 of 10 left on the order')).toBeTruthy();
    fireEvent.change(screen.getByRole('textbox', { name: /Quantity/ }), { target: { value: '2' } });
    fireEvent.change(screen.getByLabelText('Expires'), { target: { value: '2098-06-01T12:30' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'nozzleTemp' }), { target: { value: '230' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add tracking field' }));
    fireEvent.click(screen.getByRole('button', { name: 'Add tracking field' }));
    fireEvent.change(screen.getByLabelText('Name of field 1'), { target: { value: 'lot' } });
    fireEvent.change(screen.getByLabelText('Value of field 1'), { target: { value: 'L7' } });
    fireEvent.change(screen.getByLabelText('Name of field 2'), { target: { value: 'lot' } });
    fireEvent.click(screen.getByRole('button', { name: 'Authorize' }));

    await waitFor(() => expect(submit).toHaveBeenCalledTimes(1));
    const request = submit.mock.calls[0]![0];
    expect(request).toMatchObject({
      orderId: order.orderId,
      deviceId: null,
      quantity: 2,
      expiration: Date.UTC(2098, 5, 1, 12, 30),
      tracking: [
        { fieldName: 'lot', fieldValue: 'L7' },
        { fieldName: 'lot', fieldValue: '' },
      ],
    });
    expect(request.deviceParameters).toEqual([
      expect.objectContaining({ parameterId: 'nozzleTemp', low: 180, high: 260, valueList: [230] }),
    ]);

    expect(await screen.findByText('The order has 3 left; 5 were asked for')).toBeTruthy();
    expect(screen.getByText('After the order')).toBeTruthy();
    expect(screen.getByText('Machine does not fit Serial number differs')).toBeTruthy();
    expect(screen.getByText('Nozzle out of range')).toBeTruthy();
    expect(screen.getByText('Duplicate field')).toBeTruthy();
    expect(screen.getByText('The user does not exist')).toBeTruthy();
    expect(screen.getByTestId('authorize-form-error').textContent).toContain('The order has expired');
    // each message is the error of its input
    const quantity = screen.getByRole('textbox', { name: /Quantity/ });
    expect(quantity.getAttribute('aria-invalid')).toBe('true');
    const nozzle = screen.getByRole('textbox', { name: 'nozzleTemp' });
    expect(nozzle.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Name of field 2').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Name of field 1').getAttribute('aria-invalid')).toBe('false');
  });

  it('sends to a downstream Manage instance picked from the approved registrations', async () => {
    const submit = vi.fn<(request: TAuthorizeRequest) => Promise<unknown>>().mockResolvedValue({});
    renderForm(submit);
    fireEvent.click(screen.getByRole('radio', { name: 'Manage instance' }));
    fireEvent.click(screen.getByRole('textbox', { name: /Manage instance/ }));
    fireEvent.click(await screen.findByRole('option', { name: 'Downstream Works (https://down.example.com)' }));
    fireEvent.change(screen.getByRole('textbox', { name: /Quantity/ }), { target: { value: '2' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'nozzleTemp' }), { target: { value: '230' } });
    fireEvent.click(screen.getByRole('button', { name: 'Authorize' }));

    await waitFor(() => expect(submit).toHaveBeenCalledTimes(1));
    expect(submit.mock.calls[0]![0]).toMatchObject({
      orderId: order.orderId,
      manageId: '7d1c2b3a-0000-4000-8000-00000000d0d0',
      quantity: 2,
    });
  });
});

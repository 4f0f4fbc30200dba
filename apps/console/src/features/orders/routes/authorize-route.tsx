import { Anchor, Group, Stack, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { alerts } from '../../../lib/alerts';
import { useAuthorizeOrder } from '../api/authorize-order';
import { useOrder } from '../api/get-order';
import { AuthorizeForm } from '../components/authorize-form';
import { ErrorAlert } from '../../../components/error-alert';

/** `/orders/:orderId/authorize`: the authorize form for one order. */
export function AuthorizeRoute() {
  const { t } = useTranslation();
  const { orderId = '' } = useParams();
  const navigate = useNavigate();
  const order = useOrder(orderId);
  const authorize = useAuthorizeOrder();
  const back = `/orders/${orderId}`;

  return (
    <Stack gap="lg">
      <PageHead title={t('orders.authorize.title')} description={t('orders.authorize.description')} />
      <Anchor component={Link} to={back} c="var(--manifold-link)" w="fit-content">
        <Group gap={4}>
          <IconArrowLeft size={16} aria-hidden />
          {t('orders.authorize.back')}
        </Group>
      </Anchor>
      <Title order={1}>
        {order.data ? t('orders.authorize.titleOf', { orderNumber: order.data.orderNumber }) : t('orders.authorize.title')}
      </Title>
      {order.error ? <ErrorAlert>{apiErrorMessage(t, order.error)}</ErrorAlert> : null}
      {order.isPending ? <PageLoader /> : null}
      {order.data?.revoked ? <ErrorAlert>{t('orders.authorize.revokedOrder')}</ErrorAlert> : null}
      {order.data ? (
        <AuthorizeForm
          order={order.data}
          pending={authorize.isPending}
          submit={(request) => authorize.mutateAsync(request)}
          onCancel={() => void navigate(back)}
          onDone={() => {
            alerts.success(t('orders.authorize.done'));
            void navigate(back);
          }}
        />
      ) : null}
    </Stack>
  );
}

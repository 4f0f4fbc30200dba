import { Group, Stack, Text } from '@mantine/core';
import type { RouteKey, TRegistrationState } from '@manifold/contract';
import { IconCertificate, IconCheck, IconTrash, IconX } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { IconAction } from '../../../components/icon-action';
import { alerts } from '../../../lib/alerts';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { useApproveRegistration, useDeleteRegistration, type PeerKind } from '../api/registrations';

const approveRoutes: Record<PeerKind, RouteKey> = {
  manage: 'POST /ui/manage/approve',
  trace: 'POST /ui/trace/approve',
  protect: 'POST /ui/protect/approve',
};
const deleteRoutes: Record<PeerKind, RouteKey> = {
  manage: 'POST /ui/manage/delete',
  trace: 'POST /ui/trace/delete',
  protect: 'POST /ui/protect/delete',
};

export interface RegistrationActionsProps {
  kind: PeerKind;
  id: string;
  /** The peer's name in labels and confirmations. */
  name: string;
  state: TRegistrationState;
  /**
   * Why this instance cannot approve or reject (it asked for the registration; no Protect used the
   * token pair yet); null when it can.
   */
  undecidable: string | null;
  /** Opens the peer's certificates; none for a Protect registration. */
  onCertificates?: () => void;
}

/**
 * A registration's row actions: certificates, approve, reject (each confirmed; the peer is told
 * first, so a refusal leaves the state as it was) and delete. Approve and reject stay visible but
 * disabled on the side that cannot decide, with the reason beside them.
 */
export function RegistrationActions({ kind, id, name, state, undecidable, onCertificates }: RegistrationActionsProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const reasonId = useId();
  const session = useQuery(sessionQueryOptions());
  const role = session.data?.userProfile.role;
  const approve = useApproveRegistration(kind);
  const remove = useDeleteRegistration(kind);
  const failed = (error: unknown) => alerts.error(apiErrorMessage(t, error));

  const mayDecide = roleCan(role, approveRoutes[kind]);
  const canApprove = state === 'Pending' || state === 'Rejected';
  const canReject = state === 'Pending' || state === 'Approved';
  const decisionShown = mayDecide && (undecidable === null ? canApprove || canReject : state === 'Pending');

  const decide = (approved: boolean) =>
    confirm({
      title: approved ? t('network.actions.approveTitle') : t('network.actions.rejectTitle'),
      message: approved ? t('network.actions.approveConfirm', { name }) : t('network.actions.rejectConfirm', { name }),
      confirmLabel: approved ? t('network.actions.approve') : t('network.actions.reject'),
      color: approved ? 'green.8' : 'red.9',
      onConfirm: () =>
        approve.mutate(
          { id, approve: approved },
          {
            onSuccess: () =>
              alerts.success(approved ? t('network.actions.approved', { name }) : t('network.actions.rejected', { name })),
            onError: failed,
          },
        ),
    });

  const confirmDelete = () =>
    confirm({
      title: t('network.actions.deleteTitle'),
      message: t(kind === 'protect' ? 'network.actions.deleteProtectConfirm' : 'network.actions.deleteConfirm', { name }),
      onConfirm: () =>
        remove.mutate({ id }, { onSuccess: () => alerts.success(t('network.actions.deleted', { name })), onError: failed }),
    });

  const blocked = undecidable !== null;
  const decisions = [
    { approved: true, shown: canApprove, icon: IconCheck, color: 'green', label: t('network.actions.approve'), name: 'approve' },
    { approved: false, shown: canReject, icon: IconX, color: 'orange', label: t('network.actions.reject'), name: 'reject' },
  ] as const;
  return (
    <Stack gap={2}>
      <Group gap={4} wrap="nowrap">
        {onCertificates ? (
          <IconAction
            tooltip={t('network.certificates.open')}
            label={t('network.certificates.openFor', { name })}
            icon={IconCertificate}
            onClick={onCertificates}
          />
        ) : null}
        {decisions.map(({ approved, shown, icon, color, label, name: actionName }) =>
          decisionShown && (blocked || shown) ? (
            <IconAction
              key={actionName}
              tooltip={label}
              label={t(`network.actions.${actionName}One`, { name })}
              icon={icon}
              color={color}
              disabled={blocked}
              describedBy={blocked ? reasonId : undefined}
              loading={approve.isPending && approve.variables.approve === approved}
              onClick={() => decide(approved)}
            />
          ) : null,
        )}
        {roleCan(role, deleteRoutes[kind]) ? (
          <IconAction
            tooltip={t('common.delete')}
            label={t('network.actions.deleteOne', { name })}
            icon={IconTrash}
            color="red"
            loading={remove.isPending}
            onClick={confirmDelete}
          />
        ) : null}
      </Group>
      {decisionShown && blocked ? (
        <Text id={reasonId} size="xs" c="dimmed">
          {undecidable}
        </Text>
      ) : null}
    </Stack>
  );
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../components/api-error-message';
import { alerts } from '../lib/alerts';
import { isApiError } from '../lib/api-errors';
import { escalateSession } from '../lib/escalate-session';
import { closeEscalation, escalationStore } from '../lib/escalation';
import { useStore } from '../lib/store';

/**
 * The escalation prompt's state, shared by every screen: open when an action was refused with
 * `escalationRequired`; confirming signs a challenge with the user's security key.
 */
export function useEscalationPrompt() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { opened } = useStore(escalationStore);
  const confirm = useMutation({
    mutationFn: escalateSession,
    onSuccess: async () => {
      // the session now answers escalated: true, and a screen whose list was refused loads again
      await queryClient.invalidateQueries();
      closeEscalation();
      alerts.success(t('escalation.confirmed'));
    },
  });
  const error = confirm.error
    ? isApiError(confirm.error)
      ? apiErrorMessage(t, confirm.error)
      : t('securityKeys.browserRefused')
    : null;
  return {
    opened,
    pending: confirm.isPending,
    error,
    confirm: () => confirm.mutate(),
    close: () => {
      confirm.reset();
      closeEscalation();
    },
  };
}

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../components/api-error-message';
import { useConfirm, type ConfirmOptions } from '../components/confirm-modal';

/** The refusal of the last action of a part of a screen, shown there in words; cleared when the next action starts. */
export function useActionError() {
  const { t } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  return {
    error,
    clearError: () => setError(null),
    onError: (caught: unknown) => setError(apiErrorMessage(t, caught)),
  };
}

/** Actions behind the confirmation modal (`useConfirm`): confirming clears the last refusal, then acts. */
export function useConfirmedActions() {
  const openConfirm = useConfirm();
  const actionError = useActionError();
  const confirm = (options: ConfirmOptions) =>
    openConfirm({
      ...options,
      onConfirm: () => {
        actionError.clearError();
        options.onConfirm();
      },
    });
  return { ...actionError, confirm };
}

/** The state of a `ConfirmDialog`: open or not, and the refusal of its last try (cleared on opening). */
export function useConfirmDialog() {
  const [opened, setOpened] = useState(false);
  const actionError = useActionError();
  return {
    ...actionError,
    opened,
    open: () => {
      actionError.clearError();
      setOpened(true);
    },
    close: () => setOpened(false),
  };
}

import { Switch } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { Section } from '../../../components/section';
import { alerts } from '../../../lib/alerts';
import { useEscalationPolicy, useSetEscalationPolicy } from '../api/access-controls';

/**
 * "Security key required for all administrators" (`admin/escalation`). A refusal asking for
 * escalation opens the layout's escalation prompt; the switch then shows the stored value again.
 */
export function EscalationPolicyCard() {
  const { t } = useTranslation();
  const policy = useEscalationPolicy();
  const save = useSetEscalationPolicy();
  return (
    <Section id="escalation-policy" title={t('accessControl.escalation.title')}>
      {policy.error ? <ErrorAlert>{apiErrorMessage(t, policy.error)}</ErrorAlert> : null}
      <Switch
        label={t('accessControl.escalation.label')}
        description={t('accessControl.escalation.hint')}
        checked={policy.data?.requiredForAdmins ?? false}
        disabled={!policy.data || save.isPending}
        onChange={(event) =>
          save.mutate(
            { requiredForAdmins: event.currentTarget.checked },
            {
              onSuccess: (saved) =>
                alerts.success(t(saved.requiredForAdmins ? 'accessControl.escalation.on' : 'accessControl.escalation.off')),
              onError: (error) => alerts.error(apiErrorMessage(t, error)),
            },
          )
        }
      />
    </Section>
  );
}

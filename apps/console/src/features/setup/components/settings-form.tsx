import { Button, Group, Skeleton, Stack } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { placeProblems, type FormErrors } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { FormGeneralErrors } from '../../../components/form-fields';

const noErrors: FormErrors = { fields: {}, general: [] };

/**
 * Saving a settings form: `submit(values)` clears the problems shown, saves, and on success says
 * `savedMessage`; a refusal's problems are placed by `place` (`setErrors` for checks of its own).
 */
export function useSettingsSave<V>(
  save: UseMutationResult<unknown, Error, V>,
  savedMessage: string,
  place: (error: unknown) => FormErrors,
) {
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const submit = (values: V) => {
    setErrors(noErrors);
    save.mutate(values, {
      onSuccess: () => alerts.success(savedMessage),
      onError: (error) => setErrors(place(error)),
    });
  };
  return { errors, setErrors, clearErrors: () => setErrors(noErrors), submit };
}

/**
 * A form of one stored setting: its loading failure, or a placeholder `skeletonHeight` high until
 * it arrives; then the problems that fit no input, the inputs, and Save at the foot.
 */
export function SettingsForm({
  loaded,
  skeletonHeight,
  label,
  testId,
  errors,
  saving,
  onSubmit,
  children,
}: {
  loaded: { data: unknown; error: unknown };
  skeletonHeight: number;
  label: string;
  testId: string;
  errors: FormErrors;
  saving: boolean;
  onSubmit: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  if (loaded.error) return <FormGeneralErrors errors={placeProblems(t, loaded.error, () => undefined)} />;
  if (!loaded.data) return <Skeleton h={skeletonHeight} />;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form onSubmit={submit} noValidate aria-label={label} data-testid={testId}>
      <Stack>
        <FormGeneralErrors errors={errors} />
        {children}
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

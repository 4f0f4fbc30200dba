import { ActionIcon, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import { Section } from '../../../../components/section';
import type { AuthorizeAction, AuthorizeState } from './authorize-state';

/** Tracking fields: named values carried by the authorization, added and removed row by row. */
export function TrackingSection({ state, dispatch }: { state: AuthorizeState; dispatch: Dispatch<AuthorizeAction> }) {
  const { t } = useTranslation();
  const { errors } = state;
  return (
    <Section id="authorize-tracking" title={t('orders.authorize.tracking')}>
      <Stack>
        {errors.fields.tracking ? (
          <Text size="sm" c="var(--manifold-danger)" role="alert">
            {errors.fields.tracking}
          </Text>
        ) : null}
        {state.tracking.map((row, index) => (
          <Group key={row.key} align="flex-start" wrap="nowrap">
            <TextInput
              label={t('orders.authorize.fieldName', { row: index + 1 })}
              value={row.fieldName}
              error={errors.fields[`tracking.${index}`]}
              onChange={(event) =>
                dispatch({ type: 'editTracking', key: row.key, change: { fieldName: event.currentTarget.value } })
              }
            />
            <TextInput
              label={t('orders.authorize.fieldValue', { row: index + 1 })}
              value={row.fieldValue}
              onChange={(event) =>
                dispatch({ type: 'editTracking', key: row.key, change: { fieldValue: event.currentTarget.value } })
              }
            />
            <ActionIcon
              mt={28}
              variant="subtle"
              color="red"
              aria-label={t('orders.authorize.removeField', { row: index + 1 })}
              onClick={() => dispatch({ type: 'removeTracking', key: row.key })}
            >
              <IconTrash size={16} aria-hidden />
            </ActionIcon>
          </Group>
        ))}
        <Button
          variant="default"
          w="fit-content"
          leftSection={<IconPlus size={16} aria-hidden />}
          onClick={() => dispatch({ type: 'addTracking' })}
        >
          {t('orders.authorize.addField')}
        </Button>
      </Stack>
    </Section>
  );
}

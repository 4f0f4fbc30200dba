import { Alert, Anchor, Button, FileButton, Group, List, Stack, Text, Textarea } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { apiErrorMessage, labelledProblemMessage } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { isApiError } from '../../../lib/api-errors';
import { uploadTray } from '../../../lib/upload-tray';
import { useAddOrder } from '../api/add-order';
import { useDownloadPolicySchema } from '../api/get-policy-schema';
import { uploadOrder } from '../api/upload-order';
import { jsonProblem } from './json-problem';

const policyField = 'authorizationAuthorizedPolicyList';

/**
 * Where in the policy list a problem is: its path in the JSON the user pasted or uploaded (the
 * document's own names, which the user wrote); the list or the file as a whole is the form itself.
 */
function placeInPolicy(field: string): string | undefined {
  if (field.startsWith(`${policyField}.`)) return field.slice(policyField.length + 1);
  return field === policyField || field === 'file' ? undefined : field;
}

/** One line per server problem, naming the place in the policy list it is about. */
export function policyProblems(t: TFunction, error: unknown): string[] {
  if (!isApiError(error) || error.kind !== 'badRequest' || error.problems.length === 0) return [apiErrorMessage(t, error)];
  return error.problems.map((problem) => labelledProblemMessage(t, problem, placeInPolicy));
}

/** Adds an order from an authorized policy list: pasted JSON (order/add) or a file (order/upload). */
export function AddOrderForm({ onCancel }: { onCancel: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const add = useAddOrder();
  const schema = useDownloadPolicySchema();
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [uploadProblems, setUploadProblems] = useState<string[]>([]);

  const opened = (orderId: string) => {
    alerts.success(t('orders.add.added'));
    void navigate(`/orders/${orderId}`);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setProblems([]);
    let policy: unknown;
    try {
      policy = JSON.parse(text);
    } catch {
      // the browser's own words (`JSON.parse`) are English whatever the language: the console's own say where
      const problem = jsonProblem(text);
      setProblems([
        problem === null
          ? t('orders.add.notJson')
          : problem.at === 'end'
            ? t('orders.add.notJsonEnd')
            : t('orders.add.notJsonAt', { line: problem.line, column: problem.column }),
      ]);
      return;
    }
    add.mutate(
      { authorizationAuthorizedPolicyList: policy },
      { onSuccess: (result) => opened(result.orderId), onError: (error) => setProblems(policyProblems(t, error)) },
    );
  };

  const upload = (file: File | null) => {
    if (!file) return;
    setUploadProblems([]);
    uploadTray.addFiles([file], {
      uploadType: 'order-policy',
      upload: async (chosen, context) => {
        try {
          return await uploadOrder(chosen, context);
        } catch (error) {
          setUploadProblems(policyProblems(t, error));
          throw error;
        }
      },
      finish: (result) => {
        void queryClient.invalidateQueries({ queryKey: ['orders'] });
        opened(result.orderId);
      },
    });
  };

  const problemList = (lines: string[], testId: string) =>
    lines.length > 0 ? (
      <Alert color="red" variant="light" role="alert" data-testid={testId}>
        <List size="sm">
          {lines.map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      </Alert>
    ) : null;

  return (
    <Stack>
      <Text size="sm">
        {t('orders.add.intro')}{' '}
        <Anchor
          component="button"
          type="button"
          c="var(--manifold-link)"
          onClick={() => schema.mutate(undefined, { onError: (error) => setProblems([apiErrorMessage(t, error)]) })}
        >
          {t('orders.add.schema')}
        </Anchor>
      </Text>
      <form onSubmit={submit} noValidate aria-label={t('orders.add.pasteTitle')}>
        <Stack>
          <Textarea
            label={t('orders.add.policy')}
            description={t('orders.add.policyHelp')}
            withAsterisk
            autosize
            minRows={8}
            maxRows={20}
            value={text}
            error={problems.length > 0 ? t('orders.add.refused', { count: problems.length }) : undefined}
            onChange={(event) => setText(event.currentTarget.value)}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          {problemList(problems, 'add-order-problems')}
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={add.isPending} disabled={text.trim() === ''}>
              {t('orders.add.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
      <Stack gap="xs">
        <Text size="sm" fw={500}>
          {t('orders.add.uploadTitle')}
        </Text>
        {problemList(uploadProblems, 'upload-order-problems')}
        <FileButton onChange={upload} accept=".json,application/json">
          {(props) => (
            <Button {...props} variant="default" w="fit-content" leftSection={<IconUpload size={16} aria-hidden />}>
              {t('orders.add.upload')}
            </Button>
          )}
        </FileButton>
      </Stack>
    </Stack>
  );
}

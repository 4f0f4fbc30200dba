import { Button, Code, FileButton, Group, List, Stack, Table, Text, Tooltip } from '@mantine/core';
import type { TDeviceTemplate } from '@manifold/contract';
import { IconDownload, IconTrash, IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, problemMessage } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { apiDownload } from '../../../lib/api-client';
import { isApiError } from '../../../lib/api-errors';
import { saveBlob } from '../../../lib/download';
import { uploadTray } from '../../../lib/upload-tray';
import { useDeleteDeviceTemplate } from '../api/delete-device-template';
import { packageQueryKey } from '../api/get-package';
import { importDeviceTemplate } from '../api/import-device-template';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { IconAction } from '../../../components/icon-action';
import { ErrorAlert, TitledErrorAlert } from '../../../components/error-alert';

interface ImportProblem {
  path: string | undefined;
  message: string;
}

interface ImportFailure {
  fileName: string;
  problems: ImportProblem[];
}

export interface DeviceTemplatesProps {
  dsiId: string;
  templates: readonly TDeviceTemplate[];
  canEdit: boolean;
}

function targetText(template: TDeviceTemplate): string {
  const target = template.target;
  if (!target) return '';
  return [target.manufacturer, target.model, target.family, target.deviceClass, target.technology].filter(Boolean).join(' · ');
}

/** The package's device templates: import a JSON file (validation errors with their paths), list, delete. */
export function DeviceTemplates({ dsiId, templates, canEdit }: DeviceTemplatesProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<ImportFailure | null>(null);
  const [error, setError] = useState<string | null>(null);
  const remove = useDeleteDeviceTemplate();

  const problemsOf = (caught: unknown): ImportProblem[] => {
    if (isApiError(caught) && caught.kind === 'badRequest' && caught.problems.length > 0) {
      return caught.problems.map((problem) => {
        const message = problemMessage(t, problem);
        const prefix = problem.field ? `${problem.field}: ` : '';
        return { path: problem.field, message: prefix && message.startsWith(prefix) ? message.slice(prefix.length) : message };
      });
    }
    return [{ path: undefined, message: apiErrorMessage(t, caught) }];
  };

  const importFile = (file: File | null) => {
    if (!file) return;
    setFailure(null);
    setError(null);
    uploadTray.addFiles([file], {
      uploadType: 'device-template',
      upload: async (chosen, context) => {
        try {
          return await importDeviceTemplate(dsiId, chosen, context);
        } catch (caught) {
          setFailure({ fileName: chosen.name, problems: problemsOf(caught) });
          throw caught;
        }
      },
      finish: (template) => {
        alerts.success(t('packages.templates.imported', { name: template.name }));
        void queryClient.invalidateQueries({ queryKey: packageQueryKey(dsiId) });
      },
    });
  };

  const downloadSchema = async () => {
    setError(null);
    try {
      const download = await apiDownload('GET /ui/package/device-template/schema');
      saveBlob(download.blob, 'device-template.schema.json');
    } catch (caught) {
      setError(apiErrorMessage(t, caught));
    }
  };

  const confirmDelete = (template: TDeviceTemplate) => {
    confirm({
      title: t('packages.templates.deleteTitle'),
      message: t('packages.templates.deleteConfirm', { name: template.name }),
      onConfirm: () => {
        setError(null);
        remove.mutate(
          { deviceTemplateId: template.deviceTemplateId },
          {
            onSuccess: () => alerts.success(t('packages.templates.deleted', { name: template.name })),
            onError: (caught) => setError(apiErrorMessage(t, caught)),
          },
        );
      },
    });
  };

  return (
    <Stack>
      <Group>
        {canEdit ? (
          <FileButton onChange={importFile} accept=".json,application/json">
            {(props) => (
              <Button {...props} leftSection={<IconUpload size={16} aria-hidden />}>
                {t('packages.templates.import')}
              </Button>
            )}
          </FileButton>
        ) : null}
        <Button variant="default" leftSection={<IconDownload size={16} aria-hidden />} onClick={() => void downloadSchema()}>
          {t('packages.templates.schema')}
        </Button>
      </Group>
      {failure ? (
        <TitledErrorAlert title={t('packages.templates.invalid', { name: failure.fileName })} data-testid="template-errors">
          <List size="sm" spacing={4}>
            {failure.problems.map((problem, index) => (
              <List.Item key={`${problem.path ?? ''}-${index}`}>
                {problem.path ? <Code>{problem.path}</Code> : null} {problem.message}
              </List.Item>
            ))}
          </List>
        </TitledErrorAlert>
      ) : null}
      {error ? <ErrorAlert>{error}</ErrorAlert> : null}
      <DataTable
        compact
        testId="device-templates"
        minWidth={720}
        caption={t('packages.templates.caption', { count: templates.length })}
        columns={[
          t('packages.templates.name'),
          t('packages.templates.target'),
          t('packages.templates.parameters'),
          t('packages.templates.parameterVersion'),
          t('packages.templates.sha256'),
          canEdit ? t('common.actions') : null,
        ]}
        empty={templates.length === 0 ? t('packages.templates.empty') : null}
      >
        {templates.map((template) => (
          <Table.Tr key={template.deviceTemplateId} data-template-name={template.name}>
            <Table.Td>
              <Stack gap={2}>
                <Text size="sm" fw={500}>
                  {template.name}
                </Text>
                {template.description ? (
                  <Text size="xs" c="dimmed">
                    {template.description}
                  </Text>
                ) : null}
              </Stack>
            </Table.Td>
            <Table.Td>{targetText(template)}</Table.Td>
            <Table.Td>{template.parameterCount}</Table.Td>
            <Table.Td>{template.parameterVersion ?? ''}</Table.Td>
            <Table.Td>
              <Tooltip label={template.sha256}>
                <Code>{template.sha256.slice(0, 12)}…</Code>
              </Tooltip>
            </Table.Td>
            {canEdit ? (
              <Table.Td>
                <IconAction
                  tooltip={t('common.delete')}
                  label={t('packages.templates.deleteNamed', { name: template.name })}
                  icon={IconTrash}
                  color="red"
                  onClick={() => confirmDelete(template)}
                />
              </Table.Td>
            ) : null}
          </Table.Tr>
        ))}
      </DataTable>
    </Stack>
  );
}

import { Badge, Button, Group, Stack, Table, TextInput } from '@mantine/core';
import type { TSvpTemplate } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, placeProblems, type FormErrors } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormGeneralErrors, inputLabelHeight } from '../../../components/form-fields';
import { FormModal } from '../../../components/form-modal';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { EditDeleteActions } from '../../../components/row-actions';
import { Section } from '../../../components/section';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';
import { alerts } from '../../../lib/alerts';
import { pageCount } from '../../../lib/paging';
import { useAddSvpType, useDeleteSvpTemplate, useSvpTemplates, useSvpTypes } from '../api/trace-parameters';
import { SvpTemplateForm } from '../components/svp-template-form';

const pageSize = 10;

type Editing = { mode: 'add' } | { mode: 'edit'; template: TSvpTemplate } | null;

const noErrors: FormErrors = { fields: {}, general: [] };

/** The inputs of the type form, by the fields of `svp-type/add` the server names in a problem. */
const typeFields: readonly string[] = ['name', 'description'];

/** Trace parameters (ADMIN): parameter types, and templates of parameters with their data type, association, units and bounds. */
export function TraceParametersRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  // two lists on one screen: each its own page in the address
  const typePaging = usePagedSearch({ pageParam: 'typesPage' });
  const templatePaging = usePagedSearch({ pageParam: 'templatesPage' });
  const { page: typePage, setPage: setTypePage } = typePaging;
  const { page: templatePage, setPage: setTemplatePage } = templatePaging;
  const types = useSvpTypes({ pageNum: typePage, numberOfItems: pageSize });
  const allTypes = useSvpTypes({ pageNum: 1, numberOfItems: 500 });
  const templates = useSvpTemplates({ pageNum: templatePage, numberOfItems: pageSize });
  usePageInRange(typePaging, types);
  usePageInRange(templatePaging, templates);
  const addType = useAddSvpType();
  const deleteTemplate = useDeleteSvpTemplate();
  const [typeErrors, setTypeErrors] = useState<FormErrors>(noErrors);
  const [typeName, setTypeName] = useState('');
  const [typeDescription, setTypeDescription] = useState('');
  const [editing, setEditing] = useState<Editing>(null);

  const submitType = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTypeErrors(noErrors);
    addType.mutate(
      { name: typeName, description: typeDescription },
      {
        onSuccess: (type) => {
          alerts.success(t('svp.typeAdded', { name: type.name }));
          setTypeName('');
          setTypeDescription('');
        },
        onError: (error) =>
          setTypeErrors(
            placeProblems(t, error, (problem) =>
              problem.field !== undefined && typeFields.includes(problem.field) ? problem.field : undefined,
            ),
          ),
      },
    );
  };

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('svp.title')}
        description={t('svp.description')}
        add={
          (allTypes.data?.data.length ?? 0) > 0
            ? { label: t('svp.addTemplate'), onClick: () => setEditing({ mode: 'add' }) }
            : null
        }
      />
      <Section id="svp-types" title={t('svp.types')}>
        <Stack gap="sm">
          <form onSubmit={submitType} aria-label={t('svp.addType')}>
            <Stack gap="xs">
              <FormGeneralErrors errors={typeErrors} testId="svp-type-error" />
              <Group align="flex-start">
                <TextInput
                  label={t('svp.typeName')}
                  required
                  value={typeName}
                  error={typeErrors.fields.name}
                  onChange={(e) => setTypeName(e.currentTarget.value)}
                />
                <TextInput
                  label={t('svp.descriptionField')}
                  value={typeDescription}
                  error={typeErrors.fields.description}
                  onChange={(e) => setTypeDescription(e.currentTarget.value)}
                />
                <Button type="submit" loading={addType.isPending} mt={inputLabelHeight}>
                  {t('svp.addType')}
                </Button>
              </Group>
            </Stack>
          </form>
          <DataTable
            testId="svp-types-table"
            caption={t('svp.typesCaption', { count: types.data?.totalNumOfItems ?? 0 })}
            minWidth={480}
            compact
            columns={[t('svp.typeName'), t('svp.descriptionField')]}
            empty={types.data?.data.length === 0 ? t('svp.emptyTypes') : null}
          >
            {(types.data?.data ?? []).map((type) => (
              <Table.Tr key={type.id}>
                <Table.Td>{type.name}</Table.Td>
                <Table.Td>{type.description}</Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
          <ListPagination total={pageCount(types.data)} value={typePage} onChange={setTypePage} />
        </Stack>
      </Section>
      {templates.error ? <ErrorAlert>{apiErrorMessage(t, templates.error)}</ErrorAlert> : null}
      <DataTable
        testId="svp-templates-table"
        caption={t('svp.templatesCaption', { count: templates.data?.totalNumOfItems ?? 0 })}
        minWidth={720}
        busy={templates.isFetching}
        columns={[t('svp.name'), t('svp.type'), t('svp.parameters'), t('common.actions')]}
        empty={templates.data?.data.length === 0 ? t('svp.emptyTemplates') : null}
      >
        {(templates.data?.data ?? []).map((template) => (
          <Table.Tr key={template.id} data-template={template.name}>
            <Table.Td>{template.name}</Table.Td>
            <Table.Td>{template.typeName}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {template.parameters.map((parameter) => (
                  <Badge key={parameter.parameterId} variant="light" color="gray" c="var(--manifold-text)" tt="none">
                    {parameter.name} · {t(`svp.dataTypes.${parameter.dataType}`)} ·{' '}
                    {t(`svp.associations.${parameter.association}`)}
                  </Badge>
                ))}
              </Group>
            </Table.Td>
            <Table.Td>
              <EditDeleteActions
                editLabel={t('svp.editNamed', { name: template.name })}
                deleteLabel={t('svp.deleteNamed', { name: template.name })}
                onEdit={() => setEditing({ mode: 'edit', template })}
                onDelete={() =>
                  confirm({
                    title: t('svp.deleteTitle'),
                    message: t('svp.deleteConfirm', { name: template.name }),
                    onConfirm: () =>
                      deleteTemplate.mutate(
                        { id: template.id },
                        {
                          onSuccess: () => alerts.success(t('svp.deleted', { name: template.name })),
                          onError: (error) => alerts.error(apiErrorMessage(t, error)),
                        },
                      ),
                  })
                }
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(templates.data)} value={templatePage} onChange={setTemplatePage} />
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? t('svp.editTemplate') : t('svp.addTemplate')}
        // the parameters' table: eight columns of inputs side by side
        size={1100}
      >
        {editing ? (
          <SvpTemplateForm
            key={editing.mode === 'edit' ? editing.template.id : 'new'}
            template={editing.mode === 'edit' ? editing.template : undefined}
            types={allTypes.data?.data ?? []}
            onCancel={() => setEditing(null)}
            onDone={(template) => {
              alerts.success(t('svp.saved', { name: template.name }));
              setEditing(null);
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}

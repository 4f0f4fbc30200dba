import { Anchor, Button, FileButton, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import type { TSvpAssociation, TSvpParameter, TSvpTemplate, TSvpValue } from '@manifold/contract';
import { IconDownload, IconUpload } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiErrorMessage, namedErrorMessage, placeProblems, type FormErrors } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { IconAction } from '../../../components/icon-action';
import { ListPagination } from '../../../components/list-pagination';
import { EditDeleteActions } from '../../../components/row-actions';
import { Section } from '../../../components/section';
import { alerts } from '../../../lib/alerts';
import { formatBytes, useDateTimeFormat } from '../../../lib/format';
import { boundsText } from '../../../lib/parameter-bounds';
import { uploadTray } from '../../../lib/upload-tray';
import { useDtlList } from '../api/trace-lists';
import {
  downloadValueFile,
  replaceValueFile,
  uploadValueFile,
  useAddManualValue,
  useAllSvpTemplates,
  useDeleteValue,
  useEditManualValue,
  useInvalidateValues,
  useTraceValues,
  type ValueTarget,
} from '../api/trace-values';
import { FormGeneralErrors } from '../../../components/form-fields';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const noErrors: FormErrors = { fields: {}, general: [] };
const pageSize = 10;

/** The associations a value can take on this page: a part page records part, part-and-build and build values; a build page build values. */
function associationsOf(target: ValueTarget): readonly TSvpAssociation[] {
  return target.partId !== undefined ? ['PART', 'BUILD_PART', 'BUILD'] : ['BUILD'];
}

/** The part and build a value of `association` names, as the server wants them (docs/quality.md). */
export function valueTargetFields(association: TSvpAssociation, target: ValueTarget): { partId?: string; buildId?: string } {
  switch (association) {
    case 'PART':
      return target.partId !== undefined ? { partId: target.partId } : {};
    case 'BUILD_PART':
      return target.partId !== undefined ? { partId: target.partId, buildId: target.buildId } : {};
    case 'BUILD':
      return { buildId: target.buildId };
  }
}

interface Choice {
  template: TSvpTemplate;
  parameter: TSvpParameter;
}

function parameterLabel(parameter: { name: string; units: string | null }): string {
  return parameter.units ? `${parameter.name} (${parameter.units})` : parameter.name;
}

/** The value as a cell shows it: the entry with its units, the machine data record, or the file. */
function ValueCell({ value, dtlNames, deviceId }: { value: TSvpValue; dtlNames: ReadonlyMap<string, string>; deviceId: string }) {
  const { t, i18n } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  if (value.dataType === 'FILE' && value.file) {
    return (
      <Stack gap={2}>
        <Group gap={4} wrap="nowrap">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {value.file.fileName} ({formatBytes(value.file.size, i18n.language)})
          </Text>
          <IconAction
            tooltip={t('trace.values.download')}
            label={t('trace.values.downloadFile', { name: value.file.fileName })}
            icon={IconDownload}
            onClick={() => {
              setError(null);
              downloadValueFile(value).catch((caught: unknown) => setError(apiErrorMessage(t, caught)));
            }}
          />
        </Group>
        {error ? (
          <Text size="xs" c="var(--manifold-danger)">
            {error}
          </Text>
        ) : null}
      </Stack>
    );
  }
  if (value.dataType === 'DTL' && value.dtlId) {
    return (
      <Anchor component={Link} to={`/machine-data?deviceId=${deviceId}`} c="var(--manifold-link)" size="sm">
        {t('trace.values.dtlRecord', { name: dtlNames.get(value.dtlId) ?? value.dtlId.slice(0, 8) })}
      </Anchor>
    );
  }
  return (
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {value.value}
      {value.units ? ` ${value.units}` : ''}
    </Text>
  );
}

/**
 * The trace-parameter values of a part (its own and its build's) or of a build, and the form to
 * record one (docs/quality.md): a manual entry with its bounds and units (the server judges it and
 * a refusal shows on the field), a machine data record of the machine, or a file through the
 * upload tray; each value can be edited (a file replaced) or deleted.
 */
export function TraceValuesPanel({ target, deviceId }: { target: ValueTarget; deviceId: string }) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const confirm = useConfirm();
  const paging = usePagedSearch({ pageParam: 'valuesPage' });
  const { page: pageNum, setPage: setPageNum } = paging;
  const values = useTraceValues(target, { pageNum, numberOfItems: pageSize });
  usePageInRange(paging, values);
  const templates = useAllSvpTemplates();
  const dtls = useDtlList({ pageNum: 1, numberOfItems: 100, deviceId });
  const add = useAddManualValue();
  const edit = useEditManualValue();
  const remove = useDeleteValue();
  const invalidate = useInvalidateValues();
  const [parameterId, setParameterId] = useState<string | null>(null);
  const [editing, setEditing] = useState<TSvpValue | null>(null);
  const [entry, setEntry] = useState('');
  const [dtlId, setDtlId] = useState<string | null>(null);
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  const allowed = associationsOf(target);
  const choices: Choice[] = (templates.data?.data ?? []).flatMap((template) =>
    template.parameters
      .filter((parameter) => allowed.includes(parameter.association))
      .map((parameter) => ({ template, parameter })),
  );
  const chosenId = editing?.parameterId ?? parameterId;
  const chosen = choices.find((choice) => choice.parameter.parameterId === chosenId);
  const parameterData = (templates.data?.data ?? [])
    .map((template) => ({
      group: template.name,
      items: choices
        .filter((choice) => choice.template.id === template.id)
        .map((choice) => ({ value: choice.parameter.parameterId, label: parameterLabel(choice.parameter) })),
    }))
    .filter((group) => group.items.length > 0);

  const reset = () => {
    setEditing(null);
    setEntry('');
    setDtlId(null);
    setErrors(noErrors);
  };

  const place = (error: unknown) =>
    setErrors(
      placeProblems(t, error, (problem) =>
        problem.field === 'value' || problem.field === 'dtlId'
          ? problem.field
          : problem.field === 'parameterId'
            ? 'parameterId'
            : undefined,
      ),
    );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!chosen) return;
    setErrors(noErrors);
    const content = chosen.parameter.dataType === 'DTL' ? { dtlId: dtlId ?? '' } : { value: entry };
    const done = {
      onSuccess: () => {
        alerts.success(t(editing ? 'trace.values.edited' : 'trace.values.added', { name: chosen.parameter.name }));
        reset();
      },
      onError: place,
    };
    if (editing) edit.mutate({ id: editing.id, ...content }, done);
    else
      add.mutate(
        { parameterId: chosen.parameter.parameterId, ...valueTargetFields(chosen.parameter.association, target), ...content },
        done,
      );
  };

  const sendFile = (file: File | null) => {
    if (!file || !chosen) return;
    setErrors(noErrors);
    const replacing = editing;
    const { parameter } = chosen;
    uploadTray.addFiles([file], {
      uploadType: 'trace-value',
      upload: async (picked, context) => {
        try {
          return replacing
            ? await replaceValueFile({ id: replacing.id, parameterId: parameter.parameterId, file: picked }, context)
            : await uploadValueFile(
                { parameterId: parameter.parameterId, ...valueTargetFields(parameter.association, target), file: picked },
                context,
              );
        } catch (caught) {
          setErrors({ fields: {}, general: [namedErrorMessage(t, picked.name, caught)] });
          throw caught;
        }
      },
      finish: () => {
        alerts.success(t(replacing ? 'trace.values.edited' : 'trace.values.added', { name: parameter.name }));
        if (replacing) reset();
        void invalidate();
      },
    });
  };

  const startEdit = (value: TSvpValue) => {
    setErrors(noErrors);
    setEditing(value);
    setEntry(value.value ?? '');
    setDtlId(value.dtlId);
  };

  const askDelete = (value: TSvpValue) =>
    confirm({
      title: t('trace.values.deleteTitle'),
      message: t('trace.values.deleteMessage', { name: value.parameterName }),
      onConfirm: () =>
        remove.mutate(
          { id: value.id },
          {
            onSuccess: () => {
              alerts.success(t('trace.values.deleted', { name: value.parameterName }));
              if (editing?.id === value.id) reset();
            },
            onError: (error) => setErrors({ fields: {}, general: [apiErrorMessage(t, error)] }),
          },
        ),
    });

  const bounds = chosen ? boundsText(chosen.parameter) : '';
  const dtlNames = new Map((dtls.data?.data ?? []).map((dtl) => [dtl.dtlId, dtl.fileName]));
  const dtlData = (dtls.data?.data ?? []).map((dtl) => ({
    value: dtl.dtlId,
    label: `${dtl.fileName} · ${format(dtl.dateCreated)}`,
  }));

  // no template has a parameter for this page: the form says so instead of offering an empty picker
  const nothingToRecord = choices.length === 0 && templates.data !== undefined && editing === null;

  return (
    <Section id="trace-values" title={t('trace.values.title')}>
      <Stack gap="md">
        {values.error ? <ErrorAlert>{apiErrorMessage(t, values.error)}</ErrorAlert> : null}
        <DataTable
          testId="trace-values-table"
          minWidth={820}
          busy={values.isFetching}
          caption={t('trace.values.caption', { count: values.data?.totalNumOfItems ?? 0 })}
          columns={[
            t('trace.values.parameter'),
            t('trace.values.value'),
            t('trace.values.attachedTo'),
            t('trace.values.recordedBy'),
            t('trace.values.updated'),
            t('common.actions'),
          ]}
          empty={values.data?.data.length === 0 ? t('trace.values.empty') : null}
        >
          {(values.data?.data ?? []).map((value) => (
            <Table.Tr key={value.id} data-value-id={value.id} data-parameter={value.parameterName}>
              <Table.Td>
                <Text size="sm" fw={500}>
                  {value.parameterName}
                </Text>
                <Text size="xs" c="dimmed">
                  {value.templateName}
                </Text>
              </Table.Td>
              <Table.Td>
                <ValueCell value={value} dtlNames={dtlNames} deviceId={deviceId} />
              </Table.Td>
              <Table.Td>{t(`trace.values.associations.${value.association}`)}</Table.Td>
              <Table.Td>{value.createdBy}</Table.Td>
              <Table.Td>
                <time dateTime={value.dateUpdated}>{format(value.dateUpdated)}</time>
              </Table.Td>
              <Table.Td>
                <EditDeleteActions
                  editLabel={t('trace.values.editValue', { name: value.parameterName })}
                  deleteLabel={t('trace.values.deleteValue', { name: value.parameterName })}
                  onEdit={() => startEdit(value)}
                  onDelete={() => askDelete(value)}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        <ListPagination value={pageNum} total={values.data?.totalNumOfPages ?? 1} onChange={setPageNum} />
        <form onSubmit={submit} aria-label={editing ? t('trace.values.editTitle') : t('trace.values.addTitle')}>
          <Stack gap="sm">
            <Text fw={600} size="sm" component="h3">
              {editing ? t('trace.values.editTitle') : t('trace.values.addTitle')}
            </Text>
            {nothingToRecord ? <Text c="dimmed">{t('trace.values.noParameters')}</Text> : null}
            {nothingToRecord ? null : (
              <>
                <Group align="flex-start">
                  <Select
                    label={t('trace.values.parameter')}
                    placeholder={t('trace.values.pickParameter')}
                    data={parameterData}
                    value={chosenId}
                    disabled={editing !== null}
                    error={errors.fields.parameterId}
                    searchable
                    w={320}
                    onChange={(next) => {
                      setParameterId(next);
                      setEntry('');
                      setDtlId(null);
                      setErrors(noErrors);
                    }}
                  />
                  {chosen?.parameter.dataType === 'MANUAL_ENTRY' ? (
                    <TextInput
                      label={parameterLabel(chosen.parameter)}
                      description={bounds ? t('quality.bounds', { bounds }) : undefined}
                      required={chosen.parameter.required}
                      value={entry}
                      error={errors.fields.value}
                      w={280}
                      data-parameter={chosen.parameter.name}
                      onChange={(event) => setEntry(event.currentTarget.value)}
                    />
                  ) : null}
                  {chosen?.parameter.dataType === 'DTL' ? (
                    <Select
                      label={t('trace.values.dtl')}
                      description={t('trace.values.dtlHelp')}
                      data={dtlData}
                      value={dtlId}
                      error={errors.fields.dtlId}
                      searchable
                      w={360}
                      nothingFoundMessage={t('trace.values.noDtl')}
                      onChange={setDtlId}
                    />
                  ) : null}
                </Group>
                <FormGeneralErrors errors={errors} />
                <Group>
                  {chosen?.parameter.dataType === 'FILE' ? (
                    <FileButton onChange={sendFile}>
                      {(props) => (
                        <Button {...props} leftSection={<IconUpload size={16} aria-hidden />}>
                          {editing ? t('trace.values.replaceFile') : t('trace.values.chooseFile')}
                        </Button>
                      )}
                    </FileButton>
                  ) : (
                    <Button type="submit" disabled={!chosen} loading={add.isPending || edit.isPending}>
                      {editing ? t('common.save') : t('trace.values.record')}
                    </Button>
                  )}
                  {editing ? (
                    <Button variant="default" onClick={reset}>
                      {t('common.cancel')}
                    </Button>
                  ) : null}
                </Group>
              </>
            )}
          </Stack>
        </form>
      </Stack>
    </Section>
  );
}

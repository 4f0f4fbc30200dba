import { Button, Checkbox, Group, NumberInput, Select, Stack, Table, TextInput, Textarea } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { svpAssociations, svpDataTypes, type TSvpParameterInput, type TSvpTemplate, type TSvpType } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { placeProblems, type FormErrors } from '../../../components/api-error-message';
import { IconAction } from '../../../components/icon-action';
import { useAddSvpTemplate, useEditSvpTemplate } from '../api/trace-parameters';
import { FormGeneralErrors } from '../../../components/form-fields';

type Row = TSvpParameterInput & { key: string };

const emptyRow = (): Row => ({
  key: crypto.randomUUID(),
  name: '',
  dataType: 'MANUAL_ENTRY',
  association: 'PART',
  required: false,
});

/** Adds or edits a template: name, type, description and its parameters (data type, association, units, bounds). */
export function SvpTemplateForm({
  template,
  types,
  onDone,
  onCancel,
}: {
  template: TSvpTemplate | undefined;
  types: TSvpType[];
  onDone: (template: TSvpTemplate) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const add = useAddSvpTemplate();
  const edit = useEditSvpTemplate();
  const [name, setName] = useState(template?.name ?? '');
  const [typeId, setTypeId] = useState<string | null>(template?.typeId ?? types[0]?.id ?? null);
  const [description, setDescription] = useState(template?.description ?? '');
  const [rows, setRows] = useState<Row[]>(
    template
      ? template.parameters.map((parameter) => ({
          key: parameter.parameterId,
          parameterId: parameter.parameterId,
          name: parameter.name,
          dataType: parameter.dataType,
          association: parameter.association,
          required: parameter.required,
          ...(parameter.units ? { units: parameter.units } : {}),
          ...(parameter.low !== null ? { low: parameter.low } : {}),
          ...(parameter.high !== null ? { high: parameter.high } : {}),
        }))
      : [emptyRow()],
  );
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const change = (key: string, patch: Partial<Row>) =>
    setRows((current) => current.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  const setBound = (key: string, bound: 'low' | 'high', value: string | number) =>
    setRows((current) =>
      current.map((row) => {
        if (row.key !== key) return row;
        const { [bound]: _old, ...rest } = row;
        return typeof value === 'number' ? { ...rest, [bound]: value } : rest;
      }),
    );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parameters = rows.map(({ key: _key, ...row }) => row);
    const body = { typeId: typeId ?? '', name, description, parameters };
    const handlers = {
      onSuccess: onDone,
      onError: (error: unknown) =>
        setErrors(placeProblems(t, error, (problem) => (problem.field === 'name' ? 'name' : undefined))),
    };
    if (template) edit.mutate({ ...body, id: template.id }, handlers);
    else add.mutate(body, handlers);
  };

  return (
    <form onSubmit={submit} aria-label={template ? t('svp.editTemplate') : t('svp.addTemplate')}>
      <Stack gap="sm">
        <TextInput
          label={t('svp.name')}
          required
          value={name}
          error={errors.fields.name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Select
          label={t('svp.type')}
          required
          data={types.map((type) => ({ value: type.id, label: type.name }))}
          value={typeId}
          onChange={setTypeId}
        />
        <Textarea label={t('svp.descriptionField')} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
        <Table.ScrollContainer minWidth={1010}>
          <Table>
            <Table.Caption>{t('svp.parametersCaption')}</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                {[
                  t('svp.name'),
                  t('svp.dataType'),
                  t('svp.association'),
                  t('svp.units'),
                  t('svp.low'),
                  t('svp.high'),
                  t('svp.required'),
                  t('common.actions'),
                ].map((column) => (
                  <Table.Th key={column} scope="col" style={{ whiteSpace: 'nowrap' }}>
                    {column}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => (
                <Table.Tr key={row.key}>
                  <Table.Td>
                    <TextInput
                      aria-label={t('svp.parameterName', { index: index + 1 })}
                      miw={140}
                      required
                      value={row.name}
                      onChange={(e) => change(row.key, { name: e.currentTarget.value })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Select
                      aria-label={t('svp.parameterDataType', { index: index + 1 })}
                      w={170}
                      data={svpDataTypes.map((value) => ({ value, label: t(`svp.dataTypes.${value}`) }))}
                      value={row.dataType}
                      allowDeselect={false}
                      onChange={(value) => value && change(row.key, { dataType: value as Row['dataType'] })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Select
                      aria-label={t('svp.parameterAssociation', { index: index + 1 })}
                      w={150}
                      data={svpAssociations.map((value) => ({ value, label: t(`svp.associations.${value}`) }))}
                      value={row.association}
                      allowDeselect={false}
                      onChange={(value) => value && change(row.key, { association: value as Row['association'] })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={t('svp.parameterUnits', { index: index + 1 })}
                      value={row.units ?? ''}
                      w={80}
                      onChange={(e) => change(row.key, { units: e.currentTarget.value })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <NumberInput
                      aria-label={t('svp.parameterLow', { index: index + 1 })}
                      w={90}
                      value={row.low ?? ''}
                      onChange={(v) => setBound(row.key, 'low', v)}
                    />
                  </Table.Td>
                  <Table.Td>
                    <NumberInput
                      aria-label={t('svp.parameterHigh', { index: index + 1 })}
                      w={90}
                      value={row.high ?? ''}
                      onChange={(v) => setBound(row.key, 'high', v)}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Checkbox
                      aria-label={t('svp.parameterRequired', { index: index + 1 })}
                      checked={row.required}
                      onChange={(e) => change(row.key, { required: e.currentTarget.checked })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <IconAction
                      tooltip={t('common.delete')}
                      label={t('svp.removeParameter', { index: index + 1 })}
                      icon={IconTrash}
                      color="red"
                      disabled={rows.length === 1}
                      onClick={() => setRows((current) => current.filter((other) => other.key !== row.key))}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Group>
          <Button variant="light" onClick={() => setRows((current) => [...current, emptyRow()])}>
            {t('svp.addParameter')}
          </Button>
        </Group>
        <FormGeneralErrors errors={errors} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={add.isPending || edit.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

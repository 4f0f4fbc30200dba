import { Button, Group, Stack, Textarea, TextInput } from '@mantine/core';
import type { TClassification, TGroup, TSecureRepoNode } from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom } from '../../../components/api-error-message';
import { ClassificationSelect } from '../../../components/classification';
import { SearchMultiSelect, type SearchSource } from '../../../components/search-select';
import { groupOption, groupPickerQueryOptions } from '../../../lib/pickers';
import { useCreateFolder, useEditNode } from '../api/change-secure-repo';
import { FormGeneralErrors } from '../../../components/form-fields';

const groupSource: SearchSource<TGroup> = { queryOptions: groupPickerQueryOptions, toOption: groupOption };

export type NodeFormMode =
  | { kind: 'create'; parent: TSecureRepoNode | null; canLabel: boolean }
  | { kind: 'edit'; node: TSecureRepoNode; canShare: boolean };

/**
 * Creates a folder (name, description, groups — a subfolder's start as its parent's — and, for an
 * ADMIN, a CUI / FCI label) or edits a node's description and, for an ADMIN, a folder's groups and
 * label. The label is sent only when the ADMIN changed it (the folder's own label then).
 */
export function NodeForm({
  mode,
  onCancel,
  onDone,
}: {
  mode: NodeFormMode;
  onCancel: () => void;
  onDone: (node: TSecureRepoNode) => void;
}) {
  const { t } = useTranslation();
  const create = useCreateFolder();
  const edit = useEditNode();
  const initial = mode.kind === 'create' ? null : mode.node;
  const [name, setName] = useState('');
  const [description, setDescription] = useState(initial?.description ?? '');
  const startGroups = mode.kind === 'create' ? (mode.parent?.groups ?? []) : mode.node.groups;
  const [groups, setGroups] = useState<string[]>(startGroups.map(String));
  const showsGroups = mode.kind === 'create' || (mode.node.nodeType === 'folder' && mode.canShare);
  const showsLabel = mode.kind === 'create' ? mode.canLabel : mode.node.nodeType === 'folder' && mode.canShare;
  // the label that applies before any change (a folder inside a labelled one starts with that
  // label: it applies anyway). A folder's `classification` is the label that applies, often one it
  // inherits, so the form sends the label only when changed: an unchanged inherited label is
  // never set on the folder itself, where it would stay once the label above was removed
  const startLabel = mode.kind === 'create' ? (mode.parent?.classification ?? null) : mode.node.classification;
  const [label, setLabel] = useState<TClassification | null>(startLabel);
  const labelChange = showsLabel && label !== startLabel ? { classification: label } : {};
  const error = create.error ?? edit.error;
  const problems = error
    ? formErrorsFrom(t, error, ['folderName', 'description', 'groups', 'classification'])
    : { fields: {}, general: [] };

  const submit = () => {
    const groupIds = groups.map(Number);
    if (mode.kind === 'create') {
      create.mutate(
        {
          ...(mode.parent ? { parentNodeId: mode.parent.nodeId } : {}),
          folderName: name,
          description,
          groups: groupIds,
          ...labelChange,
        },
        { onSuccess: onDone },
      );
    } else {
      edit.mutate(
        {
          nodeId: mode.node.nodeId,
          description,
          ...(showsGroups ? { groups: groupIds } : {}),
          ...labelChange,
        },
        { onSuccess: onDone },
      );
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Stack>
        <FormGeneralErrors errors={problems} />
        {mode.kind === 'create' ? (
          <TextInput
            label={t('secureFiles.folderName')}
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={problems.fields.folderName}
            data-autofocus
          />
        ) : null}
        <Textarea
          label={t('secureFiles.descriptionField')}
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
          error={problems.fields.description}
          autosize
          minRows={2}
        />
        {showsGroups ? (
          <SearchMultiSelect
            source={groupSource}
            label={t('secureFiles.sharedWith')}
            description={t('secureFiles.sharedWithHelp')}
            value={groups}
            onChange={setGroups}
            error={problems.fields.groups}
          />
        ) : null}
        {showsLabel ? (
          <ClassificationSelect
            value={label}
            onChange={setLabel}
            description={t('secureFiles.labelHelp')}
            error={problems.fields.classification}
          />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={create.isPending || edit.isPending}>
            {mode.kind === 'create' ? t('secureFiles.createFolder') : t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

import { Badge, Button, Card, Group, Stack, Text, VisuallyHidden } from '@mantine/core';
import type { TDeviceTemplate, TWorkflowStep } from '@manifold/contract';
import { IconArrowDown, IconArrowUp, IconGripVertical, IconPlus } from '@tabler/icons-react';
import { useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { useDeleteWorkflowStep } from '../api/delete-workflow-step';
import { moveItem, useReorderWorkflowSteps } from '../api/reorder-workflow-steps';
import { WorkflowStepForm } from './workflow-step-form';
import { useConfirm } from '../../../components/confirm-modal';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { IconAction } from '../../../components/icon-action';
import { EditDeleteActions } from '../../../components/row-actions';

type Editing = { mode: 'add' } | { mode: 'edit'; step: TWorkflowStep } | null;

export interface WorkflowStepsProps {
  dsiId: string;
  steps: readonly TWorkflowStep[];
  templates: readonly TDeviceTemplate[];
  canEdit: boolean;
}

function stepLabel(step: TWorkflowStep, fallback: string): string {
  return step.name.trim() || fallback;
}

/** The workflow: steps in order, reordered by dragging or with the move buttons. */
export function WorkflowSteps({ dsiId, steps, templates, canEdit }: WorkflowStepsProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [editing, setEditing] = useState<Editing>(null);
  const [dragIndex, setDragIndex] = useState<number | null>(null);
  // Read by the drag handlers at once: the state above only styles, and may lag a render behind.
  const dragging = useRef<number | null>(null);
  const [overIndex, setOverIndex] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reorder = useReorderWorkflowSteps();
  const remove = useDeleteWorkflowStep();
  const templateName = (id: string | null) => templates.find((template) => template.deviceTemplateId === id)?.name ?? id ?? '';

  const move = (from: number, to: number) => {
    if (from === to || to < 0 || to >= steps.length) return;
    setError(null);
    const moved = steps[from];
    const stepIds = moveItem(steps, from, to).map((step) => step.workflowStepId);
    reorder.mutate(
      { dsiId, stepIds },
      {
        onSuccess: () => {
          if (moved)
            alerts.info(t('packages.steps.moved', { name: stepLabel(moved, t('packages.steps.unnamed')), position: to + 1 }));
        },
        onError: (failure) => setError(apiErrorMessage(t, failure)),
      },
    );
  };

  const onDrop = (event: DragEvent<HTMLElement>, index: number) => {
    event.preventDefault();
    const from = dragging.current;
    dragging.current = null;
    if (from !== null) move(from, index);
    setDragIndex(null);
    setOverIndex(null);
  };

  const confirmDelete = (step: TWorkflowStep) => {
    confirm({
      title: t('packages.steps.deleteTitle'),
      message: t('packages.steps.deleteConfirm', { name: stepLabel(step, t('packages.steps.unnamed')) }),
      onConfirm: () => {
        setError(null);
        remove.mutate(
          { dsiId, workflowStepId: step.workflowStepId },
          { onError: (failure) => setError(apiErrorMessage(t, failure)) },
        );
      },
    });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {canEdit ? t('packages.steps.hint') : t('packages.steps.readOnlyHint')}
        </Text>
        {canEdit ? (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setEditing({ mode: 'add' })}>
            {t('packages.steps.add')}
          </Button>
        ) : null}
      </Group>
      {error ? <ErrorAlert>{error}</ErrorAlert> : null}
      {steps.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('packages.steps.empty')}
        </Text>
      ) : (
        <Stack
          component="ol"
          gap="xs"
          p={0}
          m={0}
          style={{ listStyle: 'none' }}
          aria-label={t('packages.steps.listLabel')}
          data-testid="workflow-steps"
        >
          {steps.map((step, index) => {
            const label = stepLabel(step, t('packages.steps.unnamed'));
            return (
              <Card
                key={step.workflowStepId}
                component="li"
                withBorder
                padding="sm"
                draggable={canEdit}
                data-step-id={step.workflowStepId}
                data-step-name={label}
                onDragStart={(event: DragEvent<HTMLElement>) => {
                  event.dataTransfer.effectAllowed = 'move';
                  event.dataTransfer.setData('text/plain', step.workflowStepId);
                  dragging.current = index;
                  setDragIndex(index);
                }}
                onDragOver={(event: DragEvent<HTMLElement>) => {
                  if (dragging.current === null) return;
                  event.preventDefault();
                  event.dataTransfer.dropEffect = 'move';
                  setOverIndex(index);
                }}
                onDragLeave={() => setOverIndex((current) => (current === index ? null : current))}
                onDrop={(event: DragEvent<HTMLElement>) => onDrop(event, index)}
                onDragEnd={() => {
                  dragging.current = null;
                  setDragIndex(null);
                  setOverIndex(null);
                }}
                style={{
                  cursor: canEdit ? 'grab' : undefined,
                  opacity: dragIndex === index ? 0.5 : 1,
                  borderColor: overIndex === index && dragIndex !== index ? 'var(--mantine-color-green-7)' : undefined,
                }}
              >
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <Group gap="sm" wrap="nowrap" align="flex-start">
                    {canEdit ? <IconGripVertical size={18} aria-hidden style={{ marginTop: 2, flexShrink: 0 }} /> : null}
                    <Badge variant="filled" color="green" circle aria-hidden>
                      {index + 1}
                    </Badge>
                    <Stack gap={2}>
                      <Group gap="xs">
                        <Text fw={600} size="sm">
                          <VisuallyHidden component="span">
                            {t('packages.steps.position', { position: index + 1 })}{' '}
                          </VisuallyHidden>
                          {label}
                        </Text>
                        <Badge
                          size="sm"
                          variant="light"
                          color={step.type === 'device' ? 'blue' : 'gray'}
                          c={step.type === 'device' ? 'var(--manifold-info)' : 'var(--manifold-text)'}
                        >
                          {t(`packages.steps.types.${step.type}`)}
                        </Badge>
                      </Group>
                      {step.type === 'device' ? (
                        <Text size="sm">{t('packages.steps.applies', { name: templateName(step.deviceTemplateId) })}</Text>
                      ) : null}
                      {step.instructions ? (
                        <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
                          {step.instructions}
                        </Text>
                      ) : null}
                    </Stack>
                  </Group>
                  {canEdit ? (
                    <Group gap={4} wrap="nowrap">
                      <IconAction
                        tooltip={t('packages.steps.moveUp')}
                        label={t('packages.steps.moveUpNamed', { name: label })}
                        icon={IconArrowUp}
                        disabled={index === 0 || reorder.isPending}
                        onClick={() => move(index, index - 1)}
                      />
                      <IconAction
                        tooltip={t('packages.steps.moveDown')}
                        label={t('packages.steps.moveDownNamed', { name: label })}
                        icon={IconArrowDown}
                        disabled={index === steps.length - 1 || reorder.isPending}
                        onClick={() => move(index, index + 1)}
                      />
                      <EditDeleteActions
                        editLabel={t('packages.steps.editNamed', { name: label })}
                        deleteLabel={t('packages.steps.deleteNamed', { name: label })}
                        onEdit={() => setEditing({ mode: 'edit', step })}
                        onDelete={() => confirmDelete(step)}
                      />
                    </Group>
                  ) : null}
                </Group>
              </Card>
            );
          })}
        </Stack>
      )}
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? t('packages.steps.editTitle') : t('packages.steps.addTitle')}
      >
        {editing ? (
          <WorkflowStepForm
            key={editing.mode === 'edit' ? editing.step.workflowStepId : 'new'}
            dsiId={dsiId}
            step={editing.mode === 'edit' ? editing.step : undefined}
            templates={templates}
            onCancel={() => setEditing(null)}
            onDone={() => {
              alerts.success(editing.mode === 'edit' ? t('packages.steps.saved') : t('packages.steps.added'));
              setEditing(null);
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}

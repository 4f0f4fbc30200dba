import { Badge, Button, FileInput, Group, SegmentedControl, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import type { TDeviceParameterValue, TInspectionResult } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { apiErrorMessage, placeProblems, type FormErrors } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { PageHead } from '../../../components/page-head';
import { Section } from '../../../components/section';
import { alerts } from '../../../lib/alerts';
import { type InspectionTargetInput, useInspectionTarget, useInspectPart } from '../api/inspect-part';
import { QualityParameterInput } from '../components/quality-parameter-input';
import { FormGeneralErrors } from '../../../components/form-fields';

const noErrors: FormErrors = { fields: {}, general: [] };

/** The form field a server problem belongs to: `qualityParameters.<id>.values[…]` goes to the parameter's input. */
function fieldOf(field: string | undefined): string | undefined {
  if (!field) return undefined;
  const parameter = /^qualityParameters\.([^.]+)/.exec(field);
  if (parameter) return `parameter:${parameter[1]}`;
  return ['reason', 'technician', 'notes', 'partId', 'buildId'].includes(field)
    ? field
    : field.startsWith('picture')
      ? 'pictures'
      : undefined;
}

/** Inspect a part (or every part of a build): the order's quality parameters with their bounds, the result, pictures. */
export function InspectRoute() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const initialKind = params.get('buildId') ? 'buildId' : 'partId';
  const [kind, setKind] = useState<'partId' | 'buildId'>(initialKind);
  const [targetId, setTargetId] = useState(params.get(initialKind) ?? '');
  const current = params.get('partId') ?? params.get('buildId');
  const target: InspectionTargetInput | undefined = params.get('partId')
    ? { partId: params.get('partId')! }
    : params.get('buildId')
      ? { buildId: params.get('buildId')! }
      : undefined;
  const loaded = useInspectionTarget(target);
  const inspect = useInspectPart();
  const [values, setValues] = useState<Record<string, TDeviceParameterValue | undefined>>({});
  const [result, setResult] = useState<TInspectionResult>('passed');
  const [reason, setReason] = useState('');
  const [technician, setTechnician] = useState('');
  const [notes, setNotes] = useState('');
  const [pictures, setPictures] = useState<File[]>([]);
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  const load = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setValues({});
    setErrors(noErrors);
    setParams(targetId.trim() ? { [kind]: targetId.trim() } : {});
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!target || !loaded.data) return;
    setErrors(noErrors);
    const qualityParameters = loaded.data.qualityParameters
      .filter((parameter) => values[parameter.id] !== undefined)
      .map((parameter) => ({ id: parameter.id, values: [values[parameter.id]!] }));
    inspect.mutate(
      {
        inspection: {
          ...target,
          result,
          technician: technician.trim(),
          ...(result === 'failed' && reason.trim() ? { reason: reason.trim() } : {}),
          ...(notes.trim() ? { notes: notes.trim() } : {}),
          qualityParameters,
        },
        pictures,
        trayLabel: t('quality.trayLabel', {
          target: loaded.data.parts.length === 1 ? (loaded.data.parts[0]!.serialNumber ?? loaded.data.parts[0]!.partId) : current,
          count: pictures.length,
        }),
      },
      {
        onSuccess: (recorded) => {
          alerts.success(t('quality.recorded', { count: recorded.data.length }));
          setPictures([]);
        },
        onError: (error) => {
          setErrors(placeProblems(t, error, (problem) => fieldOf(problem.field)));
        },
      },
    );
  };

  return (
    <Stack gap="lg">
      <PageHead title={t('quality.inspectTitle')} description={t('quality.inspectDescription')} />
      <Title order={1}>{t('quality.inspectTitle')}</Title>
      <form onSubmit={load} aria-label={t('quality.target')}>
        <Group align="end">
          <SegmentedControl
            aria-label={t('quality.targetKind')}
            value={kind}
            onChange={(value) => setKind(value === 'buildId' ? 'buildId' : 'partId')}
            data={[
              { value: 'partId', label: t('quality.part') },
              { value: 'buildId', label: t('quality.build') },
            ]}
          />
          <TextInput
            label={kind === 'partId' ? t('quality.partId') : t('quality.buildId')}
            value={targetId}
            onChange={(event) => setTargetId(event.currentTarget.value)}
            w={360}
          />
          <Button type="submit" variant="light">
            {t('quality.load')}
          </Button>
        </Group>
      </form>
      {loaded.error ? <ErrorAlert>{apiErrorMessage(t, loaded.error)}</ErrorAlert> : null}
      {current && loaded.data ? (
        <form onSubmit={submit} aria-label={t('quality.inspectTitle')}>
          <Stack gap="md">
            <Section id="inspection-parts" title={t('quality.partsInspected')}>
              <Group gap={6}>
                {loaded.data.parts.map((part) => (
                  <Badge key={part.partId} variant="light" color="gray" c="var(--manifold-text)" tt="none">
                    {part.serialNumber ?? part.partId} · {t(`quality.qmsState.${part.partQmsState}`)}
                  </Badge>
                ))}
              </Group>
            </Section>
            <Section id="inspection-values" title={t('quality.qualityParameters')}>
              <Stack gap="sm">
                {loaded.data.qualityParameters.length === 0 ? <Text c="dimmed">{t('quality.noQualityParameters')}</Text> : null}
                {loaded.data.qualityParameters.map((parameter) => (
                  <QualityParameterInput
                    key={parameter.id}
                    parameter={parameter}
                    value={values[parameter.id]}
                    error={errors.fields[`parameter:${parameter.id}`]}
                    onChange={(value) => setValues((currentValues) => ({ ...currentValues, [parameter.id]: value }))}
                  />
                ))}
              </Stack>
            </Section>
            <Section id="inspection-result" title={t('quality.result')}>
              <Stack gap="sm">
                <SegmentedControl
                  aria-label={t('quality.result')}
                  value={result}
                  onChange={(value) => setResult(value === 'failed' ? 'failed' : 'passed')}
                  data={[
                    { value: 'passed', label: t('quality.passed') },
                    { value: 'failed', label: t('quality.failed') },
                  ]}
                />
                {result === 'failed' ? (
                  <TextInput
                    label={t('quality.reason')}
                    required
                    value={reason}
                    error={errors.fields.reason}
                    onChange={(event) => setReason(event.currentTarget.value)}
                  />
                ) : null}
                <TextInput
                  label={t('quality.technician')}
                  required
                  value={technician}
                  error={errors.fields.technician}
                  onChange={(event) => setTechnician(event.currentTarget.value)}
                />
                <Textarea label={t('quality.notes')} value={notes} onChange={(event) => setNotes(event.currentTarget.value)} />
                <FileInput
                  label={t('quality.pictures')}
                  description={t('quality.picturesHint')}
                  multiple
                  clearable
                  accept="image/png,image/jpeg,image/webp"
                  value={pictures}
                  error={errors.fields.pictures}
                  onChange={(files) => setPictures(files)}
                />
              </Stack>
            </Section>
            <FormGeneralErrors errors={errors} />
            <Group>
              <Button type="submit" loading={inspect.isPending}>
                {t('quality.record')}
              </Button>
            </Group>
          </Stack>
        </form>
      ) : null}
    </Stack>
  );
}

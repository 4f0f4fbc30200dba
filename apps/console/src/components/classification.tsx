import { Badge, Select } from '@mantine/core';
import { classifications, type TClassification } from '@manifold/contract';
import { useTranslation } from 'react-i18next';

/** The CUI / FCI label of a file or folder, as a badge (nothing when unlabelled). */
export function ClassificationBadge({ label }: { label: TClassification | null }) {
  const { t } = useTranslation();
  if (!label) return null;
  return (
    <Badge size="sm" color="red.9" variant="filled" title={t('packages.files.classification')}>
      {label}
    </Badge>
  );
}

/** Chooses a CUI / FCI label or none. */
export function ClassificationSelect({
  value,
  onChange,
  description,
  error,
  width,
}: {
  value: TClassification | null;
  onChange: (label: TClassification | null) => void;
  description?: string;
  error?: string | undefined;
  width?: number;
}) {
  const { t } = useTranslation();
  return (
    <Select
      label={t('packages.files.classification')}
      description={description}
      error={error}
      w={width}
      allowDeselect={false}
      data={[{ value: '', label: t('packages.files.unlabelled') }, ...classifications.map((label) => ({ value: label, label }))]}
      value={value ?? ''}
      onChange={(next) => onChange(next ? (next as TClassification) : null)}
    />
  );
}

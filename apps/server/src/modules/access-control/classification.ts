import { classifications, type TClassification } from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';

/** A stored label as the API shows it (anything unknown reads as unlabelled). */
export function parseClassification(value: string | null | undefined): TClassification | null {
  return (classifications as readonly string[]).includes(value ?? '') ? (value as TClassification) : null;
}

/** A multipart `classification` field: absent or empty is unlabelled; CUI or FCI; else 400 naming the field. */
export function classificationField(value: string | undefined, field = 'classification'): TClassification | null {
  const text = value?.trim().toUpperCase() ?? '';
  if (!text) return null;
  const label = parseClassification(text);
  if (!label) throw new AppError('malformedRequest', { field, description: `${field} must be CUI, FCI or empty` });
  return label;
}

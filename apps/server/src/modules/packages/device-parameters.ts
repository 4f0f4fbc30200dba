import type { z } from 'zod';
import {
  deviceParameterProblems,
  errorDescriptions,
  formatPath,
  type TDeviceParameter,
  type TDeviceTemplateDocument,
  ZDeviceTemplateDocument,
} from '@manifold/contract';
import { AppError, AppErrors } from '../../lib/app-error.js';
import { parseCarryableJson } from '../../plugins/input-hygiene.js';

/** One error per zod issue, each naming the offending field. */
export function shapeErrors(issues: readonly z.core.$ZodIssue[], base = ''): AppError[] {
  return issues.slice(0, 100).map((issue) => {
    const field = formatPath(issue.path, base) || base || 'file';
    return new AppError('deviceTemplateNotFormattedCorrectly', { field, description: `${field}: ${issue.message}` });
  });
}

/** One error per broken cross-field rule, with the spec's or Manifold's token. */
export function ruleErrors(parameters: TDeviceParameter[], base: string): AppError[] {
  return deviceParameterProblems(parameters, base)
    .slice(0, 100)
    .map(
      (problem) =>
        new AppError(problem.token, { field: problem.path, description: `${problem.path}: ${errorDescriptions[problem.token]}` }),
    );
}

export function throwAll(errors: AppError[]): void {
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new AppErrors(errors);
}

/** Parses an uploaded template file: JSON (held to what a JSON body is), the template shape, then the rules between fields. */
export function parseTemplateDocument(bytes: Buffer): TDeviceTemplateDocument {
  const json = parseCarryableJson(
    bytes.toString('utf8'),
    'file',
    (reason) =>
      new AppError('deviceTemplateNotFormattedCorrectly', { field: 'file', description: `The file is not JSON: ${reason}` }),
  );
  const parsed = ZDeviceTemplateDocument.safeParse(json);
  if (!parsed.success) {
    throwAll(shapeErrors(parsed.error.issues));
    throw new AppError('deviceTemplateNotFormattedCorrectly', { field: 'file' });
  }
  throwAll(ruleErrors(parsed.data.parameters, 'parameters'));
  return parsed.data;
}

import { errorDescriptions, type ErrorToken, type TErrorResponse } from '@manifold/contract';

/**
 * The one business-error type. Services throw it with a spec token; the error plugin answers
 * 420 `{errorToken, errorDescription}` (or the status given, e.g. 404, 501).
 */
export class AppError extends Error {
  readonly token: ErrorToken;
  readonly field: string | undefined;
  readonly status: number;

  constructor(token: ErrorToken, options: { field?: string; description?: string; status?: number } = {}) {
    super(options.description ?? errorDescriptions[token]);
    this.name = 'AppError';
    this.token = token;
    this.field = options.field;
    this.status = options.status ?? 420;
  }

  toResponse(): TErrorResponse {
    return {
      errorToken: this.token,
      errorDescription: this.message,
      ...(this.field ? { field: this.field } : {}),
    };
  }
}

/** Several business errors found in one request: answered together as 418 with the list. */
export class AppErrors extends Error {
  readonly errors: AppError[];

  constructor(errors: AppError[]) {
    super(errors.map((error) => error.token).join(', '));
    this.name = 'AppErrors';
    this.errors = errors;
  }
}

/**
 * Collects business errors and throws them: one as 420, several as 418, none not at all.
 */
export class ErrorCollector {
  private readonly errors: AppError[] = [];

  add(token: ErrorToken, field?: string): void {
    this.errors.push(new AppError(token, field ? { field } : {}));
  }

  get size(): number {
    return this.errors.length;
  }

  throwIfAny(): void {
    if (this.errors.length === 1) throw this.errors[0]!;
    if (this.errors.length > 1) throw new AppErrors(this.errors);
  }
}

export const notFound = (): AppError => new AppError('entityDoesNotExist', { status: 404 });
export const notImplemented = (): AppError => new AppError('functionNotImplemented', { status: 501 });

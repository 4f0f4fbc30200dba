import { errorDescriptions, type ErrorToken, type TErrorResponse } from '@manifold/contract';

/**
 * The HTTP status of every error token that is not a business error (420). The one place a
 * status is chosen: a token answers the same status wherever it is raised.
 */
export const errorStatus: Partial<Record<ErrorToken, number>> = {
  malformedRequest: 400,
  invalidSessionToken: 401,
  orderSenderNotTrusted: 401,
  stpSignatureInvalid: 401,
  stpTimestampOutOfWindow: 401,
  stpNonceReplayed: 401,
  traceEventSignatureInvalid: 401,
  uploadTokenInvalid: 401,
  traceEventMalformed: 400,
  actionNotAllowed: 403,
  escalationRequired: 403,
  accessConstraintFailed: 403,
  entityDoesNotExist: 404,
  payloadTooLarge: 413,
  functionNotImplemented: 501,
  // spec §8: 406 on quality search
  qualitySearchSortUnknown: 406,
  qualitySearchRangeTooLarge: 406,
};

/**
 * The `WWW-Authenticate` challenge every 401 carries (RFC 9110 §15.5.2): the auth plugin's refusal
 * of a request without a live session, and a 401 token raised anywhere else (the error handler).
 */
export const unauthorizedChallenge = 'Bearer';

/** The status a token answers: its row in `errorStatus`, else 420 (one business error). */
export function statusOf(token: ErrorToken): number {
  return errorStatus[token] ?? 420;
}

/**
 * The one business-error type. Services throw it with a spec token; the error plugin answers
 * `{errorToken, errorDescription}` with the token's status from `errorStatus` (420 by default).
 */
export class AppError extends Error {
  readonly token: ErrorToken;
  readonly field: string | undefined;
  readonly status: number;

  constructor(token: ErrorToken, options: { field?: string | undefined; description?: string | undefined } = {}) {
    super(options.description ?? errorDescriptions[token]);
    this.name = 'AppError';
    this.token = token;
    this.field = options.field;
    this.status = statusOf(token);
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

  add(token: ErrorToken, field?: string, description?: string): void {
    this.errors.push(new AppError(token, { field, description }));
  }

  get size(): number {
    return this.errors.length;
  }

  throwIfAny(): void {
    if (this.errors.length === 1) throw this.errors[0]!;
    if (this.errors.length > 1) throw new AppErrors(this.errors);
  }
}

export const notFound = (): AppError => new AppError('entityDoesNotExist');
export const notImplemented = (): AppError => new AppError('functionNotImplemented');

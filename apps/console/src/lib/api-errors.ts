import { formatPath, ZErrorResponse, ZMultipleErrorResponse, type TErrorResponse } from '@manifold/contract';
import { ZodError } from 'zod';

/** Client messages of spec §8, in English; the screens translate them by `kind`. */
export const apiMessages = {
  invalidSession: 'Invalid session token',
  loginRequired: 'You must log in to continue',
  sessionExpired: 'Your session has expired. Log in to continue.',
  forbidden: 'Action not allowed',
  notFound: 'Entity does not exist',
  server: 'Oops! Something went wrong. Try again later.',
  network: 'Service Unavailable',
  aborted: 'User aborted request',
  unsafeRedirect: 'Failed to redirect to unsafe target',
} as const;

export type ApiErrorKind =
  'invalidSession' | 'loginRequired' | 'forbidden' | 'notFound' | 'badRequest' | 'server' | 'network' | 'aborted';

export type ApiProblem = TErrorResponse;

export class ApiError extends Error {
  override readonly name: string = 'ApiError';

  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    /** HTTP status; 0 when no answer came (network failure, abort). */
    readonly status: number,
    /** Business errors the server reported: one for 400/406/420, the list of `data` for 418. */
    readonly problems: readonly ApiProblem[] = [],
  ) {
    super(message);
  }

  get errorToken(): string | undefined {
    return this.problems[0]?.errorToken;
  }

  get field(): string | undefined {
    return this.problems[0]?.field;
  }
}

/** 401, or no session token on a call that needs one. */
export class InvalidSessionError extends ApiError {
  override readonly name = 'InvalidSessionError';

  constructor(message: string = apiMessages.invalidSession, kind: 'invalidSession' | 'loginRequired' = 'invalidSession') {
    super(kind, message, 401);
  }
}

/** 400, 406, 418, 420: the request was refused for reasons the server names. */
export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';

  constructor(message: string, status: number, problems: readonly ApiProblem[]) {
    super('badRequest', message, status, problems);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** Network failures and 5xx answers may succeed later; 4xx answers are final (spec §9). */
export function isRetryable(error: unknown): boolean {
  if (!isApiError(error)) return false;
  return error.kind === 'network' || error.status >= 500;
}

/**
 * The property an input check's issue is about, named as the server names the field of a 400
 * `malformedRequest` (plugins/errors.ts on the server): nested properties joined by dots, list
 * items by index (`credentials.awsStorageEndpoint`, `batch[0].deviceId`). None for the input as a
 * whole or a list of it.
 */
function issueField(path: readonly PropertyKey[]): string | undefined {
  return typeof path[0] === 'string' ? formatPath(path) : undefined;
}

/**
 * A failure of an API call as the errors of spec §8. The api wrappers check their input against the
 * contract's schema before sending it (`ZSomething.parse(input)`), so input the server would refuse
 * (a value over its length, say) fails in the console with a ZodError before any request: it is
 * said as the server says the same fault, a 400 `malformedRequest` for each property at fault,
 * naming its field. Any other failure is answered as it is.
 */
export function asApiFailure(error: unknown): unknown {
  if (!(error instanceof ZodError)) return error;
  const problems: ApiProblem[] = [];
  for (const issue of error.issues) {
    const field = issueField(issue.path);
    if (field !== undefined && problems.some((problem) => problem.field === field)) continue;
    problems.push({
      errorToken: 'malformedRequest',
      errorDescription: field === undefined ? issue.message : `${field}: ${issue.message}`,
      ...(field === undefined ? {} : { field }),
    });
  }
  return new BadRequestError(problems[0]?.errorDescription ?? apiMessages.server, 400, problems);
}

export function networkError(): ApiError {
  return new ApiError('network', apiMessages.network, 0);
}

export function abortedError(): ApiError {
  return new ApiError('aborted', apiMessages.aborted, 0);
}

function singleProblem(body: unknown): ApiProblem | undefined {
  const parsed = ZErrorResponse.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/** Maps a non-success answer to the error of spec §8. */
export function errorFromResponse(status: number, body: unknown): ApiError {
  switch (status) {
    case 401: {
      return new InvalidSessionError(singleProblem(body)?.errorDescription ?? apiMessages.invalidSession);
    }
    case 403:
      return new ApiError('forbidden', apiMessages.forbidden, status, problemList(body));
    case 404:
      return new ApiError('notFound', apiMessages.notFound, status, problemList(body));
    case 400:
    case 406:
    case 420: {
      const problem = singleProblem(body);
      if (!problem) return new BadRequestError(apiMessages.server, status, []);
      return new BadRequestError(problem.errorDescription, status, [problem]);
    }
    case 418: {
      const parsed = ZMultipleErrorResponse.safeParse(body);
      const problems = parsed.success ? parsed.data.data : [];
      const message = problems.map((problem) => problem.errorDescription).join('; ') || apiMessages.server;
      return new BadRequestError(message, status, problems);
    }
    default:
      return new ApiError('server', apiMessages.server, status, problemList(body));
  }
}

function problemList(body: unknown): ApiProblem[] {
  const problem = singleProblem(body);
  return problem ? [problem] : [];
}

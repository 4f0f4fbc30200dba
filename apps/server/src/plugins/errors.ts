import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { errorDescriptions, formatPath, type TErrorResponse } from '@manifold/contract';
import type { z } from 'zod';
import { AppError, AppErrors, statusOf, unauthorizedChallenge } from '../lib/app-error.js';
import { identifierErrors } from '../lib/identifier-errors.js';
import { StorageNotFoundError } from '../storage/storage.js';

function describeValidation(error: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation.slice(0, 5).map((issue) => {
      const where = [error.validationContext, issue.instancePath.replace(/^\//, '')].filter(Boolean).join('/');
      return `${where || 'request'}: ${issue.message}`;
    });
    return issues.join('; ');
  }
  return error.message;
}

/**
 * The body property a validation failure is about, named as business errors name fields: the
 * property, nested ones joined by dots, list items by index (`credentials.awsStorageEndpoint`,
 * `batch[0].deviceId`). Several faults: the first one's. None when the failure is not the body's
 * (querystring, params, headers) or is the body's as a whole (not an object, unknown properties).
 */
function validationField(error: FastifyError): string | undefined {
  if (error.validationContext !== 'body' || !hasZodFastifySchemaValidationErrors(error)) return undefined;
  const instancePath: string = error.validation[0]?.instancePath ?? '';
  const path = instancePath
    .split('/')
    .filter(Boolean)
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  return typeof path[0] === 'string' ? formatPath(path) : undefined;
}

/** The contract schema the failed request part was validated against. */
function validatedSchema(error: FastifyError, request: FastifyRequest): z.ZodType | undefined {
  const context = error.validationContext;
  const schema = context ? (request.routeOptions.schema as Record<string, unknown> | undefined)?.[context] : undefined;
  return schema && typeof schema === 'object' && '_zod' in schema ? (schema as z.ZodType) : undefined;
}

/** A validation failure that only concerns identifier fields, as their tokens (see `identifierErrors`). */
function identifierFailure(error: FastifyError, request: FastifyRequest): AppError | AppErrors | undefined {
  if (!hasZodFastifySchemaValidationErrors(error)) return undefined;
  const schema = validatedSchema(error, request);
  if (!schema) return undefined;
  const paths = error.validation.map((issue) => issue.instancePath.split('/').slice(1).filter(Boolean));
  return identifierErrors(schema, paths);
}

const malformed = (description: string, field?: string): TErrorResponse => ({
  errorToken: 'malformedRequest',
  errorDescription: description,
  ...(field ? { field } : {}),
});

/**
 * Maps every failure to the spec's answers (§8): one business error with its token's status
 * (`errorStatus`, 420 by default; a 401 with the `WWW-Authenticate` challenge), 418 several, 400
 * malformed input (naming the body property at fault, see `validationField`; but a malformed
 * identifier answers its own token, see `identifierErrors`), a stored object gone missing
 * `storageTypeReadError`.
 * Nothing else leaves the server: no stack, no SQL.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((caught: FastifyError, request, reply) => {
    const error = (caught.validation && identifierFailure(caught, request)) || caught;
    if (error instanceof AppError) {
      // a 401 raised by a service (a refresh that lost its session, a machine's bad token) carries
      // the challenge the auth plugin's own 401 does
      if (error.status === 401) reply.header('WWW-Authenticate', unauthorizedChallenge);
      return reply.status(error.status).send(error.toResponse());
    }
    if (error instanceof AppErrors) return reply.status(418).send({ data: error.errors.map((e) => e.toResponse()) });
    if (error.validation) return reply.status(400).send(malformed(describeValidation(error), validationField(error)));
    const status = error.statusCode ?? 500;
    if (status === statusOf('payloadTooLarge')) {
      const tooLarge = new AppError('payloadTooLarge');
      return reply.status(tooLarge.status).send(tooLarge.toResponse());
    }
    if (status >= 400 && status < 500) {
      // Unparsable JSON, a wrong content type, an empty body where one is needed…
      const description =
        error.code?.startsWith('FST_ERR_CTP') || status === 400 ? error.message : errorDescriptions.malformedRequest;
      return reply.status(400).send(malformed(description));
    }
    if (error instanceof StorageNotFoundError) {
      // a stored object a row names is gone (lost, or removed by hand): the client is told the file
      // cannot be read, as the routes that map their own read failures say; the operator is told why
      request.log.error({ err: error }, 'request failed: a stored object is missing');
      const missing = new AppError('storageTypeReadError', { description: 'The stored file is missing' });
      return reply.status(missing.status).send(missing.toResponse());
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ errorToken: 'unknownError', errorDescription: errorDescriptions.unknownError });
  });
}

function clientErrorStatus(code: string | undefined): { status: number; reason: string; body: TErrorResponse } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      body: { errorToken: 'malformedRequest', errorDescription: 'The request headers are too large' },
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      reason: 'Request Timeout',
      body: { errorToken: 'malformedRequest', errorDescription: 'The request took too long to arrive' },
    };
  }
  return { status: 400, reason: 'Bad Request', body: malformed('The request could not be parsed') };
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers too large, a request
 * that took too long, garbage) still get the spec's error body, then the connection closes.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, body } = clientErrorStatus(error.code);
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogCall = (...args: unknown[]) => void;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/**
 * The logger of one request (`request.log`, `reply.log`): Fastify makes a child of the server's
 * logger for each request, carrying its `reqId`. Making a pino child costs more than the rest of
 * a short request's logging, and most requests log nothing at the configured level; so this one
 * makes the child the first time the request logs something that will be written, and forwards
 * to it from then on. What is written is the same as with the child made at once.
 */
class DeferredChildLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: ChildOptions | undefined,
  ) {}

  /** The child, made now if it is not yet. */
  private child_(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: Level, args: unknown[]): void {
    const parent = this.parent as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    if (this.#child === undefined && parent.isLevelEnabled?.(level) === false) return;
    (this.child_()[level] as LogCall)(...args);
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.child_().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Record<string, unknown>, options?: ChildOptions): FastifyBaseLogger {
    return this.child_().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger made on its first written line (`DeferredChildLogger`). */
export const deferredChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new DeferredChildLogger(
    logger,
    bindings as Record<string, unknown>,
    hasOwnKeys(options) ? options : undefined,
  ) as unknown as FastifyBaseLogger;

/** Whether `value` holds any key (Fastify passes `{}` for a route without its own log level or serializers). */
function hasOwnKeys(value: object | undefined): boolean {
  if (value) for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

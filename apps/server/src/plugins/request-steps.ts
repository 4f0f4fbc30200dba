import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * One server-wide step every request takes on arrival (security headers, body watch, API
 * version, …): synchronous; answers `true` when it has sent the reply itself (the request goes no
 * further), nothing otherwise.
 */
export type RequestStep = (request: FastifyRequest, reply: FastifyReply) => boolean | void;

const stepsOf = new WeakMap<FastifyInstance, RequestStep[]>();

/**
 * Adds `step` to the server-wide steps of `app`, run in the order added by one `onRequest` hook
 * (added with the first step): Fastify's hook runner costs more per hook than such a step does,
 * and every request (a not-found one too) pays it.
 */
export function onEveryRequest(app: FastifyInstance, step: RequestStep): void {
  const steps = stepsOf.get(app);
  if (steps) {
    steps.push(step);
    return;
  }
  const added = [step];
  stepsOf.set(app, added);
  app.addHook('onRequest', (request, reply, done) => {
    for (let i = 0; i < added.length; i += 1) if (added[i]!(request, reply) === true) return;
    done();
  });
}

/** The route's own hooks of a lifecycle stage, as one list (a route may give one function or none). */
export function routeHooks<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

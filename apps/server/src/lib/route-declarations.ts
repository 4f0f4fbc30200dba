import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { ZEmpty, ZPage, ZPageQuery, type TPage, type TPageQuery } from '@manifold/contract';
import { callerOf } from '../plugins/auth.js';
import type { Caller } from './caller.js';
import { responses } from './route-schemas.js';

/** The Fastify instance a zod-typed plugin receives. */
export type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

/** What the API reference shows of a route. */
export interface RouteDoc {
  tags: string[];
  summary: string;
}

/**
 * The three shapes most list-and-change calls of the console take, declared once: a page of
 * items (`GET …/list?pageNum&numberOfItems`), a change answering the stored item, and an action
 * answering `{}`. Access (role, constraint, escalation) stays in the permission table. Answers are
 * typed by the schema's input side, which the reply serializer checks them against.
 */
export function pageRoute<T extends z.ZodType>(
  app: ZodApp,
  path: string,
  doc: RouteDoc & { item: T },
  list: (query: TPageQuery) => Promise<TPage<z.input<T>>>,
): void {
  app.get(
    path,
    { schema: { tags: doc.tags, summary: doc.summary, querystring: ZPageQuery, response: responses(ZPage(doc.item)) } },
    (request) => list(request.query),
  );
}

/** `POST path` with a body, answering what `save` answers (the added or changed item). */
export function saveRoute<B extends z.ZodType, R extends z.ZodType>(
  app: ZodApp,
  path: string,
  doc: RouteDoc & { body: B; response: R },
  save: (body: z.output<B>, caller: Caller) => Promise<z.input<R>>,
): void {
  app.post(
    path,
    // the answer is typed by `save`'s signature (TypeScript cannot resolve Fastify's reply type
    // through a generic schema); the reply serializer checks it against `doc.response` at run time
    {
      schema: {
        tags: doc.tags,
        summary: doc.summary,
        body: doc.body as z.ZodType,
        response: responses(doc.response as z.ZodType),
      },
    },
    (request) => save(request.body as z.output<B>, callerOf(request)),
  );
}

/** `POST path` with a body, answering `{}` once `act` is done. */
export function actionRoute<B extends z.ZodType>(
  app: ZodApp,
  path: string,
  doc: RouteDoc & { body: B },
  act: (body: z.output<B>, caller: Caller) => Promise<unknown>,
): void {
  app.post(
    path,
    { schema: { tags: doc.tags, summary: doc.summary, body: doc.body as z.ZodType, response: responses(ZEmpty) } },
    async (request) => {
      await act(request.body as z.output<B>, callerOf(request));
      return {};
    },
  );
}

/** One call of a collection: its summary in the API reference and what it runs. */
type CollectionCall<D, F> = D & { summary: string; run: F };

/**
 * A collection's calls under `base`, each declared by the shapes above: `base/list` (a page of
 * items), `base/add` and `base/edit` (answering the stored item; `edit` when the collection has
 * it) and `base/delete` (answering `{}`).
 */
export function collectionRoutes<
  T extends z.ZodType,
  AB extends z.ZodType,
  AR extends z.ZodType,
  EB extends z.ZodType,
  ER extends z.ZodType,
  DB extends z.ZodType,
>(
  app: ZodApp,
  base: string,
  tags: string[],
  calls: {
    list: CollectionCall<{ item: T }, (query: TPageQuery) => Promise<TPage<z.input<T>>>>;
    add: CollectionCall<{ body: AB; response: AR }, (body: z.output<AB>, caller: Caller) => Promise<z.input<AR>>>;
    edit?: CollectionCall<{ body: EB; response: ER }, (body: z.output<EB>, caller: Caller) => Promise<z.input<ER>>>;
    delete: CollectionCall<{ body: DB }, (body: z.output<DB>, caller: Caller) => Promise<unknown>>;
  },
): void {
  const { list, add, edit } = calls;
  pageRoute(app, `${base}/list`, { tags, summary: list.summary, item: list.item }, list.run);
  saveRoute(app, `${base}/add`, { tags, summary: add.summary, body: add.body, response: add.response }, add.run);
  if (edit) saveRoute(app, `${base}/edit`, { tags, summary: edit.summary, body: edit.body, response: edit.response }, edit.run);
  const remove = calls.delete;
  actionRoute(app, `${base}/delete`, { tags, summary: remove.summary, body: remove.body }, remove.run);
}

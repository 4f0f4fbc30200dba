import { z } from 'zod';

/** Paging of spec §7/§9: `pageNum` counts from 1; `numberOfItems` defaults to 10. */
export const ZPageQuery = z.object({
  pageNum: z.coerce.number().int().min(1).max(1_000_000_000).default(1),
  numberOfItems: z.coerce.number().int().min(1).max(500).default(10),
});
export type TPageQuery = z.infer<typeof ZPageQuery>;

export function ZPage<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    pageNum: z.number().int(),
    numberOfItems: z.number().int(),
    totalNumOfPages: z.number().int(),
    totalNumOfItems: z.number().int(),
  });
}
export type TPage<T> = {
  data: T[];
  pageNum: number;
  numberOfItems: number;
  totalNumOfPages: number;
  totalNumOfItems: number;
};

/** A JSON value carried as a query-string boolean (`true`/`false`). */
export const ZQueryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

export const ZEmpty = z.object({}).meta({ id: 'Empty' });

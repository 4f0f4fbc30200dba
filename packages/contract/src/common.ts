import { z } from 'zod';

/** Decimal digits only, as a query string gives a number. */
const ZDecimalDigits = z
  .string()
  .regex(/^[0-9]+$/)
  .transform(Number);

/**
 * A paging number: a whole JSON number (a body) or decimal digits only (a query string). `Number()`
 * would also read a sign, spaces, a fraction, an exponent or `0x10` (16); those answer 400 naming
 * the parameter.
 */
function pagingNumber(max: number, fallback: number) {
  return z
    .union([z.number(), ZDecimalDigits], { error: 'Expected a whole number written in decimal digits' })
    .pipe(z.number().int().min(1).max(max))
    .default(fallback);
}

/** Paging of spec §7/§9: `pageNum` counts from 1; `numberOfItems` defaults to 10. */
export const ZPageQuery = z.object({
  pageNum: pagingNumber(1_000_000_000, 1),
  numberOfItems: pagingNumber(500, 10),
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

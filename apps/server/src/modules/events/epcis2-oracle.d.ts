/** The test-only oracle `epcis2.js` (no type declarations of its own): what the tests call of it. */
declare module 'epcis2.js' {
  export function eventToHashedId(event: unknown, context: unknown): string;
  export function validateEpcisDocument(document: unknown, throwError: boolean): { success: boolean; errors: unknown[] };
}

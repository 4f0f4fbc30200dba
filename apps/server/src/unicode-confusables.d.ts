// unicode-confusables ships its declarations under a misspelt name (index.ts.d): these are they.
declare module 'unicode-confusables' {
  export function isConfusing(input: string): boolean;
  export function rectifyConfusion(input: string): string;
}

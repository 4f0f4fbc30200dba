export const serverEntry: string;
export function bundlePath(entry?: string): string;
export function bundledNodeArgs(entry?: string): string[];
export function buildIfStale(entry?: string): void;

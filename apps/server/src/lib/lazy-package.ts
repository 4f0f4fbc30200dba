import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * An npm package loaded when first used instead of when the server starts: the SDKs and drivers of
 * what a server may not use at all (S3 and Azure storage, SAML, security keys, the database driver
 * it is not configured for) took about 0.8 s of the 2.8 s a server process needs to its first
 * answer. Loaded through `require` (each of them has a CommonJS entry), so a caller that needs it
 * synchronously gets it synchronously; the bundle (scripts/server-build.mjs) leaves the call as it
 * is, and Node resolves the package from node_modules at run time.
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}

// @vitest-environment node
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { mantineUsesReactIdInDev } from '../../vite.config';

/** The modules esbuild bundles for `useId` from @mantine/hooks, as Vite's dev server prebundles it. */
async function bundledModules(plugins: Plugin[]): Promise<string[]> {
  const result = await build({
    stdin: { contents: "export { useId } from '@mantine/hooks';", resolveDir: fileURLToPath(new URL('.', import.meta.url)) },
    bundle: true,
    write: false,
    format: 'esm',
    external: ['react'],
    metafile: true,
    logLevel: 'silent',
    plugins,
  });
  return Object.keys(result.metafile.inputs);
}

describe("Mantine's useId in `npm run dev`", () => {
  it("is React's id there too: the dev server's prebundle takes src/lib/mantine-use-id.ts", async () => {
    const modules = await bundledModules([mantineUsesReactIdInDev]);
    expect(modules.filter((module) => module.endsWith('mantine-use-id.ts'))).toHaveLength(1);
    expect(modules.filter((module) => /use-id[\\/]use-id\.mjs$/.test(module))).toEqual([]);
  });

  it("is Mantine's own without the plugin", async () => {
    const modules = await bundledModules([]);
    expect(modules.filter((module) => /@mantine[\\/]hooks[\\/]esm[\\/]use-id[\\/]use-id\.mjs$/.test(module))).toHaveLength(1);
  });
});

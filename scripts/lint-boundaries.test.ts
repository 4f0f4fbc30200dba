// The import-boundary rules of eslint.config.js, each shown firing on a deliberate violation and
// staying quiet on a clean file of the same kind. Files are linted from text at paths that need
// not exist, so the repository's real config decides.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** The boundary problems (rule ids and messages) of `code` linted as the file at `filePath`. */
async function boundaryProblems(code: string, filePath: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'boundaries/feature-boundaries')
    .map((message) => ({ ruleId: message.ruleId, message: message.message }));
}

const service = 'apps/server/src/modules/groups/lint-probe.service.ts';
const repository = 'apps/server/src/modules/groups/lint-probe.repository.ts';
const crypto = 'apps/server/src/crypto/lint-probe.ts';
const route = 'apps/server/src/modules/groups/lint-probe.routes.ts';
const feature = 'apps/console/src/features/users/components/lint-probe.tsx';

describe('server: services and repositories know nothing of HTTP', () => {
  it('refuses fastify in a service', async () => {
    const problems = await boundaryProblems(
      "import type { FastifyRequest } from 'fastify';\nexport type R = FastifyRequest;\n",
      service,
    );
    expect(problems).toEqual([
      { ruleId: 'no-restricted-imports', message: expect.stringContaining('services and repositories know nothing of HTTP') },
    ]);
  });

  it('refuses @fastify/multipart in a repository and fastify in crypto', async () => {
    const code = "import type { MultipartFile } from '@fastify/multipart';\nexport type F = MultipartFile;\n";
    expect(await boundaryProblems(code, repository)).toEqual([
      { ruleId: 'no-restricted-imports', message: expect.stringContaining('know nothing of HTTP') },
    ]);
    expect(await boundaryProblems("import fastify from 'fastify';\nexport const app = fastify;\n", crypto)).toHaveLength(1);
  });

  it('still refuses the console in a service (both server rules apply)', async () => {
    const code = "import { x } from '@manifold/console/src/lib/format';\nexport const y = x;\n";
    expect(await boundaryProblems(code, service)).toEqual([
      { ruleId: 'no-restricted-imports', message: expect.stringContaining('share code through contract only') },
    ]);
    expect(await boundaryProblems(code, route)).toHaveLength(1);
  });

  it('lets routes use fastify, and services and repositories use their own layers', async () => {
    expect(
      await boundaryProblems("import type { FastifyInstance } from 'fastify';\nexport type A = FastifyInstance;\n", route),
    ).toEqual([]);
    const clean =
      "import { z } from 'zod';\nimport type { Db } from '../../db/database';\nexport const s = z.string();\nexport type D = Db;\n";
    expect(await boundaryProblems(clean, service)).toEqual([]);
    expect(await boundaryProblems(clean, repository)).toEqual([]);
  });
});

describe('console: features do not import each other', () => {
  it('refuses another feature by a features/ path', async () => {
    const code = "import { useOrders } from 'src/features/orders/api/get-orders';\nexport const f = useOrders;\n";
    expect(await boundaryProblems(code, feature)).toEqual([
      { ruleId: 'boundaries/feature-boundaries', message: expect.stringContaining("feature 'users' imports feature 'orders'") },
    ]);
  });

  it('refuses another feature by a relative path', async () => {
    for (const specifier of ['../../orders/api/get-orders', '../../../features/orders/api/get-orders']) {
      const code = `import { useOrders } from '${specifier}';\nexport const f = useOrders;\n`;
      expect(await boundaryProblems(code, feature)).toEqual([
        { ruleId: 'boundaries/feature-boundaries', message: expect.stringContaining("imports feature 'orders'") },
      ]);
    }
    const reexport = "export { useOrders } from '../orders/api/get-orders';\n";
    expect(await boundaryProblems(reexport, 'apps/console/src/features/users/index.ts')).toHaveLength(1);
  });

  it('refuses the server in a feature', async () => {
    const code = "import { x } from '@manifold/server/src/app';\nexport const y = x;\n";
    expect(await boundaryProblems(code, feature)).toEqual([
      { ruleId: 'no-restricted-imports', message: expect.stringContaining('share code through contract only') },
    ]);
  });

  it('lets a feature import itself and the shared folders', async () => {
    const code = [
      "import { useUsers } from '../api/get-users';",
      "import { UserForm } from './user-form';",
      "import { apiRequest } from '../../../lib/api-client';",
      "import { PageHead } from '../../../components/page-head';",
      'export const all = [useUsers, UserForm, apiRequest, PageHead];',
      '',
    ].join('\n');
    expect(await boundaryProblems(code, feature)).toEqual([]);
  });
});

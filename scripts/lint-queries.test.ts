import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const eslint = new ESLint({ cwd: root });

async function messages(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-syntax').map((message) => message.message);
}

const violation = `
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export class XService {
  constructor(private readonly db: Kysely<DB>) {}

  async names(): Promise<string[]> {
    const rows = await this.db.selectFrom('users').select('username').where(sql\`1 = 1\`).execute();
    await this.db.updateTable('users').set({ role: 'USER' }).execute();
    return rows.map((row) => row.username);
  }
}
`;

const repository = `
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export class XRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async names(): Promise<string[]> {
    const rows = await this.db.selectFrom('users').select('username').execute();
    return rows.map((row) => row.username);
  }
}
`;

describe('lint: no service builds a query', () => {
  it('refuses query builders and sql templates in a service', async () => {
    const found = await messages(violation, 'apps/server/src/modules/x/x.service.ts');
    expect(found).toHaveLength(3);
    expect(new Set(found)).toEqual(new Set(['queries live in repositories: move this into a *.repository.ts and call it']));
  });

  it('lets a repository build queries', async () => {
    expect(await messages(repository, 'apps/server/src/modules/x/x.repository.ts')).toEqual([]);
  });

  it('still refuses focused tests in module files', async () => {
    const focused = `import { it } from 'vitest';\nit.only('runs alone', () => undefined);\n`;
    expect(await messages(focused, 'apps/server/src/modules/x/x-rules.ts')).toEqual(['no focused tests']);
  });
});

// Lint: typescript-eslint's recommended rules plus the project's import boundaries
// (CONVENTIONS.md): server services know nothing of HTTP; console features never import
// each other; nothing but `contract` is shared between server and console.
import fs from 'node:fs';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const featureDir = 'apps/console/src/features';
const features = fs.existsSync(featureDir)
  ? fs
      .readdirSync(featureDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
  : [];

const noFocusedTests = { selector: "CallExpression[callee.property.name='only']", message: 'no focused tests' };
// Queries live in repositories (`*.repository.ts`): a service gets a repository, built over the
// database or the caller's transaction, and never builds a query itself.
const queryMessage = 'queries live in repositories: move this into a *.repository.ts and call it';
const noQueries = [
  {
    selector:
      'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|with|forUpdate)$/]',
    message: queryMessage,
  },
  { selector: "TaggedTemplateExpression[tag.name='sql']", message: queryMessage },
  { selector: "CallExpression[callee.object.name='sql']", message: queryMessage },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'test-results/**', 'coverage/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', noFocusedTests],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: [
      'apps/server/src/modules/**/*.service.ts',
      'apps/server/src/modules/**/*.repository.ts',
      'apps/server/src/crypto/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(fastify|@fastify/|fastify-)', message: 'services and repositories know nothing of HTTP' }] },
      ],
    },
  },
  {
    // a later block replaces an earlier one's options for the same rule: keep `noFocusedTests` here
    files: ['apps/server/src/modules/**/*.ts'],
    ignores: ['apps/server/src/modules/**/*.repository.ts', 'apps/server/src/modules/**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', noFocusedTests, ...noQueries] },
  },
  {
    files: ['apps/server/**/*.ts', 'packages/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: 'apps/console|@manifold/console', message: 'share code through contract only' }] },
      ],
    },
  },
  {
    files: ['apps/console/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  ...features.map((feature) => ({
    files: [`${featureDir}/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: `features/(?!${feature}/)`, message: 'features do not import each other: move shared code to lib/ or app/' },
            { regex: 'apps/server|@manifold/server', message: 'share code through contract only' },
          ],
        },
      ],
    },
  })),
);

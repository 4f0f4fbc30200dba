// Lint: typescript-eslint's recommended rules plus the project's import boundaries
// (CONVENTIONS.md): server services know nothing of HTTP; console features never import
// each other; nothing but `contract` is shared between server and console.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import boundaries from './eslint-rules/feature-boundaries.js';

const noHttp = { regex: '^(fastify|@fastify/|fastify-)', message: 'services and repositories know nothing of HTTP' };
const shareThroughContract = { regex: 'apps/console|@manifold/console', message: 'share code through contract only' };

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
    files: ['scripts/**/*.mjs', 'eslint.config.js', 'eslint-rules/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  // Flat config: a later block naming the same rule replaces its options for the files both
  // match, so the narrower server block repeats the wider block's pattern (both must apply).
  {
    files: ['apps/server/**/*.ts', 'packages/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [shareThroughContract] }],
      // plugins/multipart.ts leaves out the hook that deletes such files: stream the parts instead
      'no-restricted-properties': [
        'error',
        { property: 'saveRequestFiles', message: 'uploads are streamed (plugins/multipart.ts)' },
        { property: 'cleanRequestFiles', message: 'uploads are streamed (plugins/multipart.ts)' },
      ],
    },
  },
  {
    files: [
      'apps/server/src/modules/**/*.service.ts',
      'apps/server/src/modules/**/*.repository.ts',
      'apps/server/src/crypto/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noHttp, shareThroughContract] }],
    },
  },
  {
    // the wider block's `noFocusedTests` repeated here, for the same reason
    files: ['apps/server/src/modules/**/*.ts'],
    ignores: ['apps/server/src/modules/**/*.repository.ts', 'apps/server/src/modules/**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', noFocusedTests, ...noQueries] },
  },
  {
    files: ['apps/console/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    // features/<other>/ by any path, relative ones included (resolved by the local rule)
    files: ['apps/console/src/features/**/*.{ts,tsx}'],
    plugins: { boundaries },
    rules: {
      'boundaries/feature-boundaries': 'error',
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: 'apps/server|@manifold/server', message: 'share code through contract only' }] },
      ],
    },
  },
);

// The layering of DESIGN.md, enforced: each folder lists what it may not import.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const ours = (...folders) => folders.flatMap((f) => [`**/${f}/**`, `**/${f}`]);

const layer = (files, forbiddenFolders, forbiddenPackages, message) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: ours(...forbiddenFolders), message },
          ...(forbiddenPackages.length ? [{ group: forbiddenPackages, message }] : []),
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'e2e/artifacts/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  layer(
    ['shared/**'],
    ['service', 'main', 'preload', 'renderer', 'scripts', 'e2e'],
    ['electron', 'fastify', 'fastify-*', '@fastify/*', 'kysely', 'better-sqlite3', 'pg', 'pino', 'react', 'react-dom', 'node:fs', 'node:child_process', 'node:net', 'node:http'],
    'shared/ is pure TypeScript: it imports nothing of ours and no I/O, server or UI package (DESIGN.md).',
  ),
  layer(
    ['service/**'],
    ['main', 'preload', 'renderer', 'e2e'],
    ['electron', 'react', 'react-dom'],
    'service/ may import only shared/ (DESIGN.md).',
  ),
  // main/ may start the service only through its public createService() (service/service.ts).
  {
    files: ['main/**'],
    ignores: ['main/electron/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/renderer/**', '**/preload/**', '**/e2e/**'], message: 'main/ may import shared/ and service/service.ts only (DESIGN.md).' },
            { group: ['**/service/**', '!**/service/service.ts'], message: 'main/ reaches the service only through createService() in service/service.ts (DESIGN.md).' },
            { group: ['electron'], message: 'Only main/electron/* and preload/ import electron (DESIGN.md).' },
            { group: ['react', 'react-dom'], message: 'main/ has no UI.' },
          ],
        },
      ],
    },
  },
);

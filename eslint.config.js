// The layering of docs/architecture.md, enforced: each folder lists what it may not import.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const ours = (...folders) => folders.flatMap((f) => [`**/${f}/**`, `**/${f}`]);

// The development package (dev chains, dev service and desk, demos) is for tests and demos only.
const DEV_MESSAGE =
  'Product code never imports the development package dev/ (docs/architecture.md); tests, service/test/, e2e/, scripts/ and dev/ itself (with its test harnesses dev/desk-testing/ and dev/ledger-testing/) may.';
const devImports = { group: ours('dev'), message: DEV_MESSAGE };
// Test harnesses live in dev/, so a product folder holds no testing/ of its own that could import it.
const TESTS = ['**/*.test.ts', 'service/test/**'];

// What every main/ file (but main/electron) may not import; main/bridge/ repeats it with its own.
const MAIN_FORBIDDEN = [
  { group: ['**/renderer/**', '**/preload/**', '**/e2e/**'], message: 'main/ may import shared/ and service/service.ts only (docs/architecture.md).' },
  { group: ['**/service/**', '!**/service/service.ts'], message: 'main/ reaches the service only through createService() in service/service.ts (docs/architecture.md).' },
  { group: ['electron'], message: 'Only main/electron/* and preload/ import electron (docs/architecture.md).' },
  { group: ['react', 'react-dom'], message: 'main/ has no UI.' },
];

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

// Every service file's limits; a folder with stricter ones repeats them (a later rule replaces an earlier one).
const SERVICE_FORBIDDEN = {
  folders: ['main', 'preload', 'renderer', 'e2e'],
  packages: ['electron', 'react', 'react-dom'],
  message: 'service/ may import only shared/ (docs/architecture.md).',
};
const serviceForbidden = () => [
  { group: ours(...SERVICE_FORBIDDEN.folders), message: SERVICE_FORBIDDEN.message },
  { group: SERVICE_FORBIDDEN.packages, message: SERVICE_FORBIDDEN.message },
];
// A coin is one row of the coin table (docs/architecture.md): product code reads the row, it never tests a
// coin's name, and a per-coin map is a complete Record so a missing coin does not compile. The
// names are read from the table itself (a pure module with no imports; Node 22 strips its types),
// so a new row is known here too; scripts/layering.test.ts checks each name bites.
const { COIN_TABLE } = await import('./shared/coins/coin-data.ts');
const COIN_NAME_LIST = Object.keys(COIN_TABLE);
const anyCoin = `/^(${COIN_NAME_LIST.join('|')})$/`;
// 'bitcoin' and 'ethereum' also name a transaction format (txFormat, tx.format) and a Ledger
// protocol: comparisons with those fields are not about coins.
const vocabulary = '/^(format|txFormat|protocol)$/';
const notAboutCoins = `:not([left.property.name=${vocabulary}], [right.property.name=${vocabulary}], [left.expression.property.name=${vocabulary}], [right.expression.property.name=${vocabulary}])`;
const coinMessage = 'A coin is a row of the coin table: read the field of its row (shared/coins/coin-data.ts), do not test a coin name.';
const partial = "TSTypeReference[typeName.name='Partial'] > TSTypeParameterInstantiation";
const perCoinRecord = 'TSTypeReference[typeName.name=/^(Readonly)?Record$/] > TSTypeParameterInstantiation > TSTypeReference:first-child[typeName.name=/^(Utxo)?CoinName$/]';
const coinRules = {
  files: ['shared/**/*.{ts,tsx}', 'service/**/*.{ts,tsx}', 'main/**/*.{ts,tsx}', 'renderer/**/*.{ts,tsx}', 'preload/**/*.{ts,tsx}'],
  // Tests and test support (upstream-scenario.ts is shared by two tests, fixtures/ generates test chains).
  ignores: ['**/*.test.ts', '**/*.test.tsx', '**/test/**', '**/fixtures/**', 'service/chains/upstream-scenario.ts', 'shared/coins/coin-data.ts', 'shared/coins/coin-table.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: `BinaryExpression[operator=/^[!=]==?$/]${notAboutCoins} > Literal[value=${anyCoin}]`, message: coinMessage },
      { selector: `SwitchCase[test.value=${anyCoin}]`, message: coinMessage },
      {
        // Partial<Record<CoinName, ...>>, also with a Readonly<...> inside the Partial.
        selector: `${partial} > ${perCoinRecord}, ${partial} > TSTypeReference[typeName.name='Readonly'] > TSTypeParameterInstantiation > ${perCoinRecord}`,
        message: 'A per-coin map is a complete Record<CoinName, ...> (or a field of the coin row), so a missing coin does not compile.',
      },
    ],
  },
};

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
  // Set-up scripts that must run on the old Node they replace: plain CommonJS.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  layer(
    ['shared/**'],
    ['service', 'main', 'preload', 'renderer', 'scripts', 'e2e'],
    ['electron', 'fastify', 'fastify-*', '@fastify/*', 'kysely', 'better-sqlite3', 'pg', 'pino', 'react', 'react-dom', 'node:fs', 'node:child_process', 'node:net', 'node:http'],
    'shared/ is pure TypeScript: it imports nothing of ours and no I/O, server or UI package (docs/architecture.md).',
  ),
  layer(['service/**'], SERVICE_FORBIDDEN.folders, SERVICE_FORBIDDEN.packages, SERVICE_FORBIDDEN.message),
  // The use cases know nothing of HTTP, and reach chains through the backend interfaces, not the store.
  {
    files: ['service/use-cases/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...serviceForbidden(),
            { group: ['fastify', 'fastify-*', '@fastify/*', ...ours('http')], message: 'service/use-cases/ know nothing of fastify or service/http: routes call them (docs/architecture.md).' },
            { group: ['kysely', 'better-sqlite3', 'pg', ...ours('store', 'index')], message: 'service/use-cases/ reach data through the backends (chains/backend.ts, chains/evm/evm-chain.ts), not the store or the index.' },
          ],
        },
      ],
    },
  },
  // Routes stay thin: they parse, call a use case and shape the answer; no scripts, transactions or rows of their own.
  {
    files: ['service/http/routes/**', 'service/http/v1/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...serviceForbidden(),
            {
              group: [...ours('store', 'index', 'chains'), ...['script', 'payment', 'assemble', 'tx', 'sighash'].flatMap((m) => [`**/shared/coins/${m}.ts`, `**/shared/coins/${m}/**`])],
              message: 'Routes call service/use-cases/ for scripts, payments, signatures and chain data (docs/architecture.md: routes stay thin).',
            },
          ],
        },
      ],
    },
  },
  // main/ may start the service only through its public createService() (service/service.ts).
  { files: ['main/**'], ignores: ['main/electron/**'], rules: { 'no-restricted-imports': ['error', { patterns: MAIN_FORBIDDEN }] } },
  // The bridge is pure over core: no electron, no UI, no HTTP server of its own. It repeats main/'s
  // limits: a later block's options replace an earlier block's for the same rule.
  {
    files: ['main/bridge/**'],
    // Its tests drive the bridge over both transports; main/'s limits still hold for them.
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...MAIN_FORBIDDEN,
            { group: [...ours('main/web', 'main/electron'), '../web/**', '../electron/**', 'node:http'], message: 'main/bridge/ is the transport-free bridge over main/core (docs/architecture.md).' },
          ],
        },
      ],
    },
  },
  // The renderer sees only shared/api and the bridge type (docs/architecture.md); it runs in a browser.
  {
    files: ['renderer/src/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)main/(?!bridge/contract\\.ts$)', message: 'renderer/ may import only the bridge type (main/bridge/contract.ts) and shared/api (docs/architecture.md).' },
            { group: ['**/main/bridge/contract.ts'], allowTypeImports: true, message: 'renderer/ imports the bridge contract as types only (import type).' },
            { regex: '(^|/)shared/(?!api/)', message: 'renderer/ may import only shared/api (docs/architecture.md).' },
            { group: ['**/service/**', '**/preload/**', '**/scripts/**', '**/e2e/**'], message: 'renderer/ may import only the bridge type and shared/api (docs/architecture.md).' },
            devImports,
            { group: ['electron', 'node:*', 'fs', 'path', 'child_process', 'better-sqlite3', 'fastify', 'pino'], message: 'renderer/ runs in a sandboxed page: no Node, no Electron (docs/architecture.md).' },
          ],
        },
      ],
    },
  },
  // preload/ exposes the bridge and nothing else: electron plus the channel allow-list and bridge type.
  {
    files: ['preload/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)main/(?!bridge/(channels|contract)\\.ts$)', message: 'preload/ may import only the channel allow-list and the bridge type (docs/architecture.md).' },
            { group: ['**/shared/**', '**/service/**', '**/renderer/**', '**/e2e/**', '**/scripts/**'], message: 'preload/ exposes exactly the bridge (docs/architecture.md).' },
          ],
        },
      ],
    },
  },
  // Product files may not import dev/. Its own rule name (the typescript-eslint twin of
  // no-restricted-imports) so it adds to the folder rules above: flat config replaces a rule's
  // options wholesale, so the same rule name here would drop them. renderer/src already uses that
  // twin for its own rules, so it lists dev/ there instead (for its tests too: they run no Node code).
  {
    files: ['shared/**', 'service/**', 'main/**', 'preload/**', 'renderer/**'],
    ignores: [...TESTS, 'renderer/src/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [devImports] }] },
  },
  coinRules,
  // e2e/ drives the app from outside: never electron, never the renderer's internals.
  layer(['e2e/**'], ['renderer', 'preload'], ['electron'], 'e2e/ tests the renderer through a browser only.'),
);

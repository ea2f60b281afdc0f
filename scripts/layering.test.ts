// The layering of docs/architecture.md is a lint rule, not a convention: this proves the rule bites.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

// The dev/ rule has a rule name of its own (see eslint.config.js), so it is counted apart.
async function devImports(filePath: string, code: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId?.endsWith('no-restricted-imports') && m.message.includes('dev/')).length;
}

// What a file at `from` would write to import dev/chains/litecoind.ts.
const importDev = (from: string) => {
  const up = '../'.repeat(from.split('/').length - 1);
  return `import { fundedNode } from '${up}dev/chains/litecoind.ts';\nexport const x = fundedNode;\n`;
};

describe('layering rules', () => {
  it('shared/ may not import service/, I/O or server packages', async () => {
    expect(await restricted('shared/coins/probe.ts', "import { buildApp } from '../../service/http/app.ts';\nexport const x = buildApp;\n")).toHaveLength(1);
    expect(await restricted('shared/api/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toHaveLength(1);
    expect(await restricted('shared/api/probe.ts', "import Fastify from 'fastify';\nexport const x = Fastify;\n")).toHaveLength(1);
  });

  it('main/ reaches the service only through createService()', async () => {
    expect(await restricted('main/core/probe.ts', "import { createService } from '../../service/service.ts';\nexport const x = createService;\n")).toHaveLength(0);
    expect(await restricted('main/core/probe.ts', "import { buildApp } from '../../service/http/app.ts';\nexport const x = buildApp;\n")).toHaveLength(1);
    expect(await restricted('main/core/probe.ts', "import { app } from 'electron';\nexport const x = app;\n")).toHaveLength(1);
    expect(await restricted('main/electron/probe.ts', "import { app } from 'electron';\nexport const x = app;\n")).toHaveLength(0);
  });

  it('main/bridge/ keeps main/\'s limits beside its own', async () => {
    expect(await restricted('main/bridge/probe.ts', "import { buildApp } from '../../service/http/app.ts';\nexport const x = buildApp;\n")).toHaveLength(1);
    expect(await restricted('main/bridge/probe.ts', "import { createService } from '../../service/service.ts';\nexport const x = createService;\n")).toHaveLength(0);
    expect(await restricted('main/bridge/probe.ts', "import { createServer } from 'node:http';\nexport const x = createServer;\n")).toHaveLength(1);
    expect(await restricted('main/bridge/probe.ts', "import { serve } from '../web/server.ts';\nexport const x = serve;\n")).toHaveLength(1);
  });

  it('product code may not import dev/; tests, testing helpers, e2e/, scripts/ and dev/ may', async () => {
    // A testing/ folder inside a product folder is product code: the harnesses live in dev/.
    const product = ['shared/coins/probe.ts', 'service/http/probe.ts', 'main/core/probe.ts', 'main/core/testing/probe.ts', 'main/core/ledger/testing/probe.ts', 'main/web/probe.ts', 'main/electron/probe.ts', 'preload/probe.ts', 'renderer/src/probe.ts', 'renderer/vite.config.ts'];
    for (const file of product) expect(await devImports(file, importDev(file)), file).toBe(1);
    const allowed = ['main/core/probe.test.ts', 'service/http/probe.regtest.test.ts', 'dev/desk-testing/probe.ts', 'dev/ledger-testing/probe.ts', 'service/test/probe.ts', 'e2e/probe.ts', 'scripts/bench/probe.ts', 'dev/probe.ts'];
    for (const file of allowed) expect(await devImports(file, importDev(file)), file).toBe(0);
    // A type-only import or a re-export is still an import of dev/.
    expect(await devImports('main/core/probe.ts', "import type { RegtestNode } from '../../dev/chains/litecoind.ts';\nexport type X = RegtestNode;\n")).toBe(1);
    expect(await devImports('service/http/probe.ts', "export * from '../../dev/chains/hardhat.ts';\n")).toBe(1);
  });

  it('the dev/ rule adds to the folder rules instead of replacing them', async () => {
    // A product file importing both: both rules report.
    const both = `${importDev('main/core/probe.ts')}import { buildApp } from '../../service/http/app.ts';\nexport const y = buildApp;\n`;
    expect(await restricted('main/core/probe.ts', both)).toContainEqual(expect.stringContaining('createService()'));
    expect(await devImports('main/core/probe.ts', both)).toBe(1);
    // A test may import dev/, but the folder rules still hold for it.
    expect(await restricted('service/http/probe.test.ts', "import { x } from '../../main/core/wallets/wallets.ts';\nexport const y = x;\n")).toHaveLength(1);
    expect(await restricted('shared/coins/probe.test.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toHaveLength(1);
    // dev/ may import product code.
    expect(await restricted('dev/probe.ts', "import { buildApp } from '../service/http/app.ts';\nexport const x = buildApp;\n")).toHaveLength(0);
  });

  it('service/ may import shared/ but not main/ or electron', async () => {
    expect(await restricted('service/http/probe.ts', "import { COIN_NAMES } from '../../shared/coins/coin-table.ts';\nexport const x = COIN_NAMES;\n")).toHaveLength(0);
    expect(await restricted('service/http/probe.ts', "import { x } from '../../main/core/wallets/wallets.ts';\nexport const y = x;\n")).toHaveLength(1);
    expect(await restricted('service/http/probe.ts', "import { app } from 'electron';\nexport const y = app;\n")).toHaveLength(1);
  });

  it('service/use-cases/ import neither fastify, service/http nor the store', async () => {
    const probe = 'service/use-cases/probe.ts';
    expect(await restricted(probe, "import type { UtxoBackend } from '../chains/backend.ts';\nimport { badRequest } from '../errors.ts';\nexport type X = UtxoBackend;\nexport const y = badRequest;\n")).toHaveLength(0);
    expect(await restricted(probe, "import Fastify from 'fastify';\nexport const x = Fastify;\n")).toHaveLength(1);
    expect(await restricted(probe, "import type { FastifyPluginAsync } from 'fastify';\nexport type X = FastifyPluginAsync;\n")).toHaveLength(1);
    expect(await restricted(probe, "import { badRequest } from '../http/errors.ts';\nexport const x = badRequest;\n")).toHaveLength(1);
    expect(await restricted(probe, "import { openStore } from '../store/database.ts';\nexport const x = openStore;\n")).toHaveLength(1);
    expect(await restricted(probe, "import { UtxoIndexStore } from '../index/utxo-index.ts';\nexport const x = UtxoIndexStore;\n")).toHaveLength(1);
    // the service's own limits still hold here
    expect(await restricted(probe, "import { x } from '../../main/core/wallets/wallets.ts';\nexport const y = x;\n")).toHaveLength(1);
    expect(await restricted(probe, "import { app } from 'electron';\nexport const y = app;\n")).toHaveLength(1);
  });

  it('routes call use cases: no scripts, payments, chains or store of their own', async () => {
    for (const probe of ['service/http/routes/probe.ts', 'service/http/v1/probe.ts']) {
      expect(await restricted(probe, "import { signAndSend } from '../../use-cases/sign-and-send.ts';\nexport const x = signAndSend;\n")).toHaveLength(0);
      expect(await restricted(probe, "import { p2shScript } from '../../../shared/coins/script.ts';\nexport const x = p2shScript;\n")).toHaveLength(1);
      expect(await restricted(probe, "import { buildPayment } from '../../../shared/coins/payment.ts';\nexport const x = buildPayment;\n")).toHaveLength(1);
      expect(await restricted(probe, "import { outpointKey } from '../../chains/backend.ts';\nexport const x = outpointKey;\n")).toHaveLength(1);
      expect(await restricted(probe, "import { openStore } from '../../store/database.ts';\nexport const x = openStore;\n")).toHaveLength(1);
      expect(await restricted(probe, "import { UtxoIndexStore } from '../../index/utxo-index.ts';\nexport const x = UtxoIndexStore;\n")).toHaveLength(1);
      expect(await restricted(probe, "import { app } from 'electron';\nexport const y = app;\n")).toHaveLength(1);
    }
  });
});

// A coin is one row of the coin table: product code neither tests a coin's name nor keeps a
// per-coin map that may miss a coin. This proves both rules bite, and where they do not.
async function syntax(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('coin rules', () => {
  const header = "import type { CoinName, UtxoCoinName } from '../../shared/coins/coin-table.ts';\n";

  it('knows every coin of the table by name', async () => {
    const { COIN_NAMES } = await import('../shared/coins/coin-table.ts');
    for (const coin of COIN_NAMES) {
      expect(await syntax('main/core/probe.ts', `export const f = (coin: string) => coin === '${coin}';\n`), coin).toHaveLength(1);
    }
  });

  it('refuses a comparison with or a switch on a coin name in product code', async () => {
    expect(await syntax('shared/coins/probe.ts', "export const f = (p: { coin: string }) => p.coin === 'dash';\n")).toHaveLength(1);
    expect(await syntax('service/http/probe.ts', "export const f = (coin: string) => 'ethereum' !== coin;\n")).toHaveLength(1);
    expect(await syntax('main/core/probe.ts', "export const f = (w?: { coin: string }) => w?.coin === 'zcash';\n")).toHaveLength(1);
    expect(await syntax('shared/files/probe.ts', "export const f = (coin: string) => coin !== 'bitcoin' && coin !== 'testnet3';\n")).toHaveLength(2);
    expect(await syntax('renderer/src/probe.tsx', "export const f = (coin: string) => coin === 'bitcoin';\n")).toHaveLength(1);
    expect(await syntax('main/core/ledger/probe.ts', "export function f(coin: string): number {\n  switch (coin) {\n    case 'litecoin':\n      return 1;\n    default:\n      return 0;\n  }\n}\n")).toHaveLength(1);
  });

  it('lets through the formats and protocols that share a coin\'s name, tests, and the table itself', async () => {
    expect(await syntax('shared/coins/probe.ts', "export const f = (p: { txFormat: string }, t?: { format?: string }) => p.txFormat === 'bitcoin' || t?.format === 'bitcoin';\n")).toHaveLength(0);
    expect(await syntax('main/core/ledger/probe.ts', "export const f = (app: { protocol: string }) => app.protocol === 'ethereum';\n")).toHaveLength(0);
    expect(await syntax('main/core/probe.test.ts', "export const f = (coin: string) => coin === 'dash';\n")).toHaveLength(0);
    expect(await syntax('dev/desk-testing/probe.ts', "export const f = (coin: string) => coin === 'dash';\n")).toHaveLength(0);
    // A testing/ folder in a product folder is product code.
    expect(await syntax('main/core/testing/probe.ts', "export const f = (coin: string) => coin === 'dash';\n")).toHaveLength(1);
    expect(await syntax('shared/coins/coin-table.ts', "export const f = (coin: string) => coin === 'ethereum';\n")).toHaveLength(0);
  });

  it('refuses a per-coin map that may miss a coin', async () => {
    expect(await syntax('service/prices/probe.ts', `${header}export const m: Partial<Record<CoinName, string>> = {};\n`)).toHaveLength(1);
    expect(await syntax('main/core/probe.ts', `${header}export const m: Readonly<Partial<Record<UtxoCoinName, number>>> = {};\n`)).toHaveLength(1);
    expect(await syntax('main/core/probe.ts', `${header}export const m: Partial<Readonly<Record<CoinName, number>>> = {};\n`)).toHaveLength(1);
    expect(await syntax('main/core/probe.ts', `${header}export type M = Readonly<Record<CoinName, number>>;\nexport type N = Partial<Record<string, number>>;\n`)).toHaveLength(0);
  });
});

// The layering of DESIGN.md is a lint rule, not a convention: this proves the rule bites.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

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

  it('service/ may import shared/ but not main/ or electron', async () => {
    expect(await restricted('service/http/probe.ts', "import { COIN_NAMES } from '../../shared/coins/coin-table.ts';\nexport const x = COIN_NAMES;\n")).toHaveLength(0);
    expect(await restricted('service/http/probe.ts', "import { x } from '../../main/core/wallets.ts';\nexport const y = x;\n")).toHaveLength(1);
    expect(await restricted('service/http/probe.ts', "import { app } from 'electron';\nexport const y = app;\n")).toHaveLength(1);
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
    expect(await syntax('main/core/testing/probe.ts', "export const f = (coin: string) => coin === 'dash';\n")).toHaveLength(0);
    expect(await syntax('shared/coins/coin-table.ts', "export const f = (coin: string) => coin === 'ethereum';\n")).toHaveLength(0);
  });

  it('refuses a per-coin map that may miss a coin', async () => {
    expect(await syntax('service/prices/probe.ts', `${header}export const m: Partial<Record<CoinName, string>> = {};\n`)).toHaveLength(1);
    expect(await syntax('main/core/probe.ts', `${header}export const m: Readonly<Partial<Record<UtxoCoinName, number>>> = {};\n`)).toHaveLength(1);
    expect(await syntax('main/core/probe.ts', `${header}export const m: Partial<Readonly<Record<CoinName, number>>> = {};\n`)).toHaveLength(1);
    expect(await syntax('main/core/probe.ts', `${header}export type M = Readonly<Record<CoinName, number>>;\nexport type N = Partial<Record<string, number>>;\n`)).toHaveLength(0);
  });
});

// The layering of docs/architecture.md is a lint rule, not a convention: this proves the rule bites.
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

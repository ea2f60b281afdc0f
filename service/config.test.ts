// The service configuration's database forms: the LevelDB full index folder beside a SQLite file,
// resolved like the file from the configuration's own folder, and refused in words where it cannot
// work (PostgreSQL: scale-out instances share one index, a LevelDB folder is one process's). And
// fields the schema does not know, refused at their path with the name most likely meant.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigFile, parseConfig } from './config.ts';
import { storeConfigOf } from './service.ts';
import { LevelIndex } from './index/level-index.ts';

describe('database.index (the full index in LevelDB)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fileWith = (database: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-config-'));
    dirs.push(dir);
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ database }));
    return { dir, path };
  };

  it('database.cacheMb, the index memory budget, reaches the store; below 16 MiB it is refused in words', () => {
    const { dir, path } = fileWith({ sqlite: 'service.sqlite', index: 'index', cacheMb: 64 });
    expect(storeConfigOf(loadConfigFile(path))).toEqual({ kind: 'sqlite', path: join(dir, 'service.sqlite'), indexDir: join(dir, 'index'), cacheMb: 64 });
    expect(() => parseConfig({ database: { sqlite: 'x.sqlite', cacheMb: 4 } })).toThrow(/database\.cacheMb is at least 16/);
  });

  it('is read from the configuration file folder, like the SQLite file, and reaches the store', () => {
    const { dir, path } = fileWith({ sqlite: 'service.sqlite', index: 'index' });
    const config = loadConfigFile(path);
    expect(config.database).toEqual({ sqlite: join(dir, 'service.sqlite'), index: join(dir, 'index') });
    expect(storeConfigOf(config)).toEqual({ kind: 'sqlite', path: join(dir, 'service.sqlite'), indexDir: join(dir, 'index') });
  });

  it('keeps an absolute folder as it is, and is optional', () => {
    const { dir, path } = fileWith({ sqlite: 'service.sqlite', index: '/srv/countersign/index' });
    expect(loadConfigFile(path).database).toEqual({ sqlite: join(dir, 'service.sqlite'), index: '/srv/countersign/index' });
    expect(storeConfigOf(parseConfig({ database: { sqlite: '/x.sqlite' } }))).toEqual({ kind: 'sqlite', path: '/x.sqlite' });
  });

  it('is refused beside PostgreSQL, in words, and refused empty', () => {
    expect(() => parseConfig({ database: { postgres: 'postgresql://localhost/x', index: '/srv/index' } })).toThrow(/database.index: the LevelDB index goes with SQLite only/);
    expect(() => parseConfig({ database: { sqlite: 'a.sqlite', index: '' } })).toThrow(/invalid configuration: database/);
  });

  it('names the folder and the reason when the index cannot be opened (a second service on it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-index-'));
    dirs.push(dir);
    const first = await LevelIndex.open(join(dir, 'litecoin'));
    try {
      await expect(LevelIndex.open(join(dir, 'litecoin'))).rejects.toThrow(/cannot open the LevelDB index in .*litecoin: another process \(a second service on this folder\?\) holds it/);
    } finally {
      await first.close();
    }
  });
});

// Issue 33: zod drops members it does not know, so each of these typos used to start a service on
// defaults (no coins and ready, mainnet, no credentials, a full index). Each is refused, at its
// path, with the nearest known name or where the setting belongs.
describe('unknown fields', () => {
  const node = { type: 'node-rpc', url: 'http://127.0.0.1:9332', username: 'u', password: 'p' };
  const refusal = (input: unknown): string => {
    try {
      parseConfig(input);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    throw new Error('the configuration was accepted');
  };

  it('refuses a mistyped coin, naming the coin meant', () => {
    expect(refusal({ coins: { litecion: { network: 'regtest', backend: node } } })).toBe('invalid configuration: coins.litecion: unknown coin; did you mean litecoin?');
  });

  it('refuses a mistyped network field instead of serving mainnet', () => {
    expect(refusal({ coins: { litecoin: { netwrok: 'regtest', backend: node } } })).toBe('invalid configuration: coins.litecoin.netwrok: unknown field; did you mean network?');
  });

  it('refuses cookiefile instead of sending no credentials', () => {
    const backend = { type: 'node-rpc', url: 'http://127.0.0.1:9332', cookiefile: '/var/lib/litecoind/.cookie' };
    expect(refusal({ coins: { litecoin: { network: 'mainnet', backend } } })).toBe('invalid configuration: coins.litecoin.backend.cookiefile: unknown field; did you mean cookieFile?');
  });

  it('refuses the index mode at the coin level, naming where it is set', () => {
    expect(refusal({ coins: { litecoin: { network: 'regtest', index: 'watch', backend: node } } })).toBe(
      'invalid configuration: coins.litecoin.index: unknown field; index is set in coins.litecoin.backend.index',
    );
    expect(parseConfig({ coins: { litecoin: { network: 'regtest', backend: { ...node, index: 'watch' } } } }).coins.litecoin?.backend).toMatchObject({ index: 'watch' });
  });

  it('looks at every level and every backend kind, and lists the known names when none is near', () => {
    expect(refusal({ listen: { prot: 8080 } })).toBe('invalid configuration: listen.prot: unknown field; did you mean port?');
    expect(refusal({ rateLimit: { enabled: true, brust: 5 } })).toBe('invalid configuration: rateLimit.brust: unknown field; did you mean burst?');
    expect(refusal({ prices: { source: 'blockbook', urls: { bitcon: 'https://btc1.trezor.io' } } })).toBe('invalid configuration: prices.urls.bitcon: unknown coin; did you mean bitcoin?');
    expect(refusal({ coins: { dash: { backend: { type: 'electrum', host: 'e.example', port: 50002, tsl: true } } } })).toBe('invalid configuration: coins.dash.backend.tsl: unknown field; did you mean tls?');
    expect(refusal({ coins: { ethereum: { backend: { type: 'evm-rpc', url: 'http://127.0.0.1:8545', startheight: 1 } } } })).toBe('invalid configuration: coins.ethereum.backend.startheight: unknown field; did you mean startHeight?');
    expect(refusal({ database: { sqlite: 'a.sqlite', indx: 'i' } })).toBe('invalid configuration: database.indx: unknown field; did you mean index?');
    expect(refusal({ database: { postgres: 'postgresql://localhost/x', shema: 'cs' } })).toBe('invalid configuration: database.shema: unknown field; did you mean schema?');
    expect(refusal({ database: { sqlite: 'a.sqlite', postgres: 'postgresql://localhost/x' } })).toBe('invalid configuration: database: sqlite or postgres, not both');
    expect(refusal({ colours: true })).toMatch(/^invalid configuration: colours: unknown field; known: listen, database, coins, .*leader$/);
  });

  it('says every unknown field at once, beside what else is wrong', () => {
    expect(refusal({ coins: { litecoin: { netwrok: 'regtest', backnd: node } }, log: { levle: 'debug' } })).toBe(
      'invalid configuration: coins.litecoin.netwrok: unknown field; did you mean network?; coins.litecoin.backnd: unknown field; did you mean backend?; log.levle: unknown field; did you mean level?; coins.litecoin.backend: Invalid input: expected object, received undefined',
    );
  });

  it('takes members named // as comments, at any level', () => {
    const config = parseConfig({ '//': 'a comment', '//database': { postgres: 'x' }, coins: { litecoin: { '//': 'mine', network: 'regtest', backend: { ...node, '//why': 'no cookie here' } } } });
    expect(config.coins.litecoin?.network).toBe('regtest');
  });
});

// The service configuration's database forms: the LevelDB full index folder beside a SQLite file,
// resolved like the file from the configuration's own folder, and refused in words where it cannot
// work (PostgreSQL: scale-out instances share one index, a LevelDB folder is one process's).
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

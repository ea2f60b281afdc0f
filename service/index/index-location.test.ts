import { describe, expect, it } from 'vitest';
import { levelLocation, locationChange } from './index-location.ts';

const base = { chain: 'litecoin', sqlitePath: '/var/lib/countersign/service.sqlite' };

describe('locationChange', () => {
  it('says nothing where the index stays, or on a first start with nothing to compare', () => {
    expect(locationChange({ ...base, recorded: 'tables', current: 'tables', currentTip: 10, tablesTip: 10 })).toBeNull();
    expect(locationChange({ ...base, recorded: null, current: 'tables', currentTip: null, tablesTip: null })).toBeNull();
    expect(locationChange({ ...base, recorded: null, current: levelLocation('/idx/litecoin'), currentTip: null, tablesTip: null })).toBeNull();
  });

  it('from the tables to a new LevelDB folder (even before any record): built again, the tables named', () => {
    const change = locationChange({ ...base, recorded: null, current: levelLocation('/idx/litecoin'), currentTip: null, tablesTip: 2_500_000 });
    expect(change?.fields).toEqual({ from: 'the tables of /var/lib/countersign/service.sqlite', to: 'the LevelDB folder /idx/litecoin', resumesAfter: null });
    expect(change?.message).toMatch(/it is built again from the start; the old index stays in the tables of \/var\/lib\/countersign\/service\.sqlite/);
  });

  it('from one folder to another: names the old folder to delete', () => {
    const change = locationChange({ ...base, recorded: 'leveldb:/old/litecoin', current: levelLocation('/new/litecoin'), currentTip: null, tablesTip: null });
    expect(change?.fields.oldFolder).toBe('/old/litecoin');
    expect(change?.message).toMatch(/the old index in \/old\/litecoin is left as it is: delete that folder/);
  });

  it('back to tables that still hold an index: resumes there', () => {
    const change = locationChange({ ...base, recorded: 'leveldb:/old/litecoin', current: 'tables', currentTip: 120, tablesTip: 120 });
    expect(change?.fields).toMatchObject({ oldFolder: '/old/litecoin', resumesAfter: 120 });
    expect(change?.message).toContain('it resumes there after block 120');
  });
});

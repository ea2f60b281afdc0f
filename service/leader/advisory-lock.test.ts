// The election on a real PostgreSQL: one holder per key, takeover when the holder's session is
// terminated, a clean release on stop. Needs PostgreSQL (fails, naming it, when absent).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import pino from 'pino';
import { TEST_POSTGRES_URL } from '../store/test-stores.ts';
import { adminSession, runName } from '../test/shared-postgres.ts';
import { until } from '../test/until.ts';
import { AdvisoryLockElection, advisoryLockKey } from './advisory-lock.ts';

const log = pino({ level: process.env.COUNTERSIGN_TEST_LOG ?? 'silent' });
const scope = runName('cs_lock'); // keys unique to this run: parallel files never meet
let admin: pg.Client;
const elections: AdvisoryLockElection[] = [];

beforeAll(async () => {
  admin = await adminSession('the election tests');
});
afterAll(async () => {
  for (const e of elections) await e.stop();
  await admin?.end();
});

function election(names: string[], retryMs: number, s = scope) {
  const changes: [string, boolean][] = [];
  const e = new AdvisoryLockElection({ url: TEST_POSTGRES_URL, scope: s, names, retryMs, log, onChange: (name, leading) => changes.push([name, leading]) });
  elections.push(e);
  return { e, changes };
}

describe('advisory lock election', () => {
  it('derives a stable signed 64-bit key per scope and index', () => {
    const k = advisoryLockKey('public', 'litecoin');
    expect(k).toBe(advisoryLockKey('public', 'litecoin'));
    expect(k).not.toBe(advisoryLockKey('other', 'litecoin'));
    expect(k).not.toBe(advisoryLockKey('public', 'bitcoin'));
    expect(k >= -(2n ** 63n) && k < 2n ** 63n).toBe(true);
  });

  it('gives each index one leader; the other takes over when the leader session is terminated', async () => {
    // The first instance retries slowly, so once its session is gone the second must be the one to take over.
    const a = election(['litecoin', 'dash'], 60_000);
    a.e.start();
    await until('the first instance to lead both indexes', () => a.e.leads('litecoin') && a.e.leads('dash'));
    const b = election(['litecoin', 'dash'], 50);
    b.e.start();
    await until('a few attempts by the second instance', () => b.e.attempts >= 3);
    expect(b.e.leads('litecoin') || b.e.leads('dash')).toBe(false);
    expect(b.changes).toEqual([]);

    const held = await admin.query<{ n: string }>("select count(*) as n from pg_locks where locktype = 'advisory' and granted and pid = $1", [a.e.sessionPid]);
    expect(Number(held.rows[0]!.n)).toBe(2);

    await admin.query('select pg_terminate_backend($1)', [a.e.sessionPid]);
    await until('the first instance to notice it lost its session', () => !a.e.leads('litecoin') && !a.e.leads('dash'));
    expect(a.changes).toEqual(expect.arrayContaining([['litecoin', false], ['dash', false]]));
    await until('the second instance to take over', () => b.e.leads('litecoin') && b.e.leads('dash'));
    expect(a.e.leads('litecoin')).toBe(false);
  });

  it('releases its locks on stop, so the next instance leads at its next attempt', async () => {
    const s = `${scope}_stop`;
    const a = election(['litecoin'], 60_000, s);
    a.e.start();
    await until('the first instance to lead', () => a.e.leads('litecoin'));
    await a.e.stop();
    expect(a.changes).toEqual([['litecoin', true], ['litecoin', false]]);
    const b = election(['litecoin'], 60_000, s);
    b.e.start();
    await until('the next instance to lead', () => b.e.leads('litecoin'));
    expect(b.e.attempts).toBe(1);
  });

  it('keeps trying while PostgreSQL cannot be reached, leading nothing', async () => {
    const dead = new AdvisoryLockElection({ url: 'postgresql://postgres@127.0.0.1:1/none', scope, names: ['litecoin'], retryMs: 20, log, onChange: () => undefined });
    elections.push(dead);
    dead.start();
    await until('a few failed attempts', () => dead.attempts >= 3);
    expect(dead.leads('litecoin')).toBe(false);
  });
});

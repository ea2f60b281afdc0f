// The store on its own: migrations at open, append-only audit, payments never deleted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chainParams } from '../../../shared/coins/index.ts';
import { expectedOutputs } from '../payments/spend.ts';
import { openStore } from './store.ts';

const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-store-'));
  dirs.push(dir);
  return join(dir, 'desk.sqlite');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('coordinator store', () => {
  it('migrates once, keeps the audit log append-only and payments undeletable', () => {
    const path = tempDb();
    const store = openStore(path);
    store.insertWallet({ id: 'w1', coin: 'litecoin', network: 'regtest', name: 'T', m: 1, createdAt: '2026-01-01T00:00:00Z' }, [
      { position: 0, name: 'a', xpub: 'x', fingerprint: '00000000', derivationPath: 'm' },
    ]);
    store.insertPayment({
      id: 'p1', walletId: 'w1', to: 'addr', amount: 10n ** 20n, minersFee: 1n, operatorFee: null, operatorAddress: null,
      unsignedTx: new Uint8Array([1, 2]), totalInputValue: 10n ** 20n + 1n, inputs: [], hashes: [],
    });
    store.audit('me', 'test', 'hello', 'file.json');
    store.close();

    const again = openStore(path);
    expect(again.payment('p1')).toMatchObject({ amount: 10n ** 20n, state: 'awaiting_signatures', unsignedTx: new Uint8Array([1, 2]) });
    expect(again.auditLog()).toMatchObject([{ actor: 'me', action: 'test', detail: 'hello', source: 'file.json' }]);
    const raw = (again as unknown as { db: { exec(sql: string): void } }).db;
    expect(() => raw.exec('UPDATE audit_log SET detail = 1')).toThrow(/append-only/);
    expect(() => raw.exec('DELETE FROM audit_log')).toThrow(/append-only/);
    expect(() => raw.exec('DELETE FROM payments')).toThrow(/never deleted/);
    // A failed transaction leaves nothing behind.
    expect(() => again.transaction(() => {
      again.audit('me', 'half', 'x');
      throw new Error('crash');
    })).toThrow('crash');
    expect(again.auditLog()).toHaveLength(1);
    again.close();
  });

  it('tells what an entry is about and pages the log newest first through a filter', () => {
    const store = openStore(tempDb());
    for (const id of ['w1', 'w2']) {
      store.insertWallet({ id, coin: 'litecoin', network: 'regtest', name: id, m: 1, createdAt: '2026-01-01T00:00:00Z' }, [
        { position: 0, name: 'alice', xpub: `x${id}`, fingerprint: '00000000', derivationPath: 'm' },
      ]);
    }
    store.insertPayment({
      id: 'p1', walletId: 'w2', to: 'addr', amount: 1n, minersFee: 1n, operatorFee: null, operatorAddress: null,
      unsignedTx: new Uint8Array([1]), totalInputValue: 2n, inputs: [], hashes: [],
    });
    store.audit('me', 'wallet.create', 'w1', null, { walletId: 'w1' });
    store.audit('me', 'wallet.create', 'w2', null, { walletId: 'w2' });
    store.audit('me', 'signature.import', 'p1 by alice', 'a.json', { paymentId: 'p1', cosigner: 'alice' });
    store.audit('me', 'service.connect', 'embedded');
    const log = store.auditTrail;
    // The payment's wallet is filled in from the payment.
    expect(log.all()[2]).toMatchObject({ walletId: 'w2', paymentId: 'p1', cosigner: 'alice', source: 'a.json' });
    expect(log.page({}, 2, 0)).toMatchObject({ total: 4, entries: [{ action: 'service.connect' }, { action: 'signature.import' }] });
    expect(log.page({}, 2, 2).entries.map((e) => e.detail)).toEqual(['w2', 'w1']);
    expect(log.page({ walletId: 'w2' }, 50, 0).entries.map((e) => e.action)).toEqual(['signature.import', 'wallet.create']);
    expect(log.matching({ paymentId: 'p1' })).toHaveLength(1);
    expect(log.matching({ cosigner: 'alice', walletId: 'w1' })).toHaveLength(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(log.matching({ fromDay: today, toDay: today })).toHaveLength(4);
    expect(log.matching({ toDay: '2020-01-01' })).toHaveLength(0);
    expect(log.cosigners()).toEqual(['alice']);
    store.close();
  });
});

describe('expectedOutputs', () => {
  const params = chainParams('litecoin', 'regtest');
  it('pays to, operator, then change; change below dust goes to the miners', () => {
    const p = { to: 'A', amount: 1000n, minersFee: 100n, operatorFee: { address: 'F', amount: 600n } };
    expect(expectedOutputs(params, p, 10_000n, 'C')).toEqual({
      outputs: [
        { address: 'A', amount: 1000n, purpose: 'payment' },
        { address: 'F', amount: 600n, purpose: 'operator_fee' },
        { address: 'C', amount: 8300n, purpose: 'change' },
      ],
      minersFee: 100n,
    });
    expect(expectedOutputs(params, p, 2000n, 'C')).toEqual({
      outputs: [
        { address: 'A', amount: 1000n, purpose: 'payment' },
        { address: 'F', amount: 600n, purpose: 'operator_fee' },
      ],
      minersFee: 400n,
    });
    expect(() => expectedOutputs(params, p, 1000n, 'C')).toThrow(/the inputs bring 0\.00001 LTC \(regtest\), less than the 0\.000017 LTC \(regtest\) asked for/);
  });
});

// On a real litecoind -regtest with the embedded service (USD pinned at 80): a wallet with a few
// deposits and a payment. Its books CSV sums to the balance, each row valued at the day's rate; its
// labels exported as BIP329 and imported into a fresh desk are the same labels; a bad file is
// refused naming its lines, and nothing of it is written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../../shared/coins/index.ts';
import { fundedNode, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { startDevService } from '../../dev/dev-service.ts';
import type { ApiClient } from '../../shared/api/client.ts';
import { booksCsv, exportBooks, walletBooks } from './books.ts';
import { exportLabels, importLabels, setLabel } from './labels.ts';
import { proposePayment } from './payments/propose.ts';
import { signRequest } from './software-signer.ts';
import { writeSigningRequest } from './payments/signing-request.ts';
import { importSignatureFiles } from './payments/signature-import.ts';
import { openStore, type CoordinatorStore } from './store/store.ts';
import { submitPayment } from './payments/submit.ts';
import { parseCsv } from '../../dev/desk-testing/csv-reader.ts';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { walletFunds, walletUnspent } from './wallets/funds.ts';
import { createWallet, nextChangeAddress, nextReceiveAddress, type CoreDeps } from './wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const cosigners = [alice, bob, carol];

let node: RegtestNode;
let api: ApiClient;
let dir: string;
let close: () => Promise<void>;
let synced: () => Promise<void>;
let store: CoordinatorStore;
let deps: CoreDeps & { api: ApiClient };
let walletId: string;
let paymentId: string;

const mine = async () => {
  await node.mine(1);
  await synced();
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-books-'));
  node = await fundedNode();
  const dev = await startDevService(node, dir, { pollIntervalMs: 100, usdRate: 80 });
  api = dev.api;
  synced = dev.synced;
  close = () => dev.service.close();
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api, actor: 'treasurer' };
  // The wallet asks about its addresses: the index must hold the node's chain first.
  await synced();
  walletId = (await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Books', m: 2, cosigners })).id;
  for (const amount of [2n * COIN, COIN / 2n, 3n * COIN]) {
    const a = await nextReceiveAddress(deps, walletId);
    await node.fundScript(addressToScript(params, a.address), amount);
    await mine();
  }
  const p = await proposePayment(deps, walletId, { to: await node.newAddress('legacy'), amount: COIN + COIN / 4n, minersFee: 20_000n });
  paymentId = p.id;
  const request = await writeSigningRequest(deps, p.id);
  importSignatureFiles(deps, [
    { name: 'alice.json', text: signRequest(request, { xprv: alice.accountXprv }).file },
    { name: 'bob.json', text: signRequest(request, { xprv: bob.accountXprv }).file },
  ]);
  await submitPayment(deps, p.id);
  await synced();
  await mine();
}, 120_000);

afterAll(async () => {
  store?.close();
  await close?.();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the books', () => {
  it('rows sum to the balance, the last balance after is the balance, the payment has its fee, each row its USD value', async () => {
    setLabel(deps, walletId, { type: 'payment', ref: paymentId, label: 'March rent' });
    const { balance } = await walletFunds(deps, walletId);
    const { text } = await exportBooks(deps, walletId, {});
    const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
    expect(header).toEqual(['date_utc', 'txid', 'amount', 'fee', 'balance_after', 'unit', 'label', 'usd_value']);
    expect(rows.every((r) => r[5] === 'LTC (regtest)')).toBe(true);
    expect(rows).toHaveLength(4);
    const units = (s: string) => BigInt(Math.round(Number(s) * 1e8));
    expect(rows.reduce((sum, r) => sum + units(r[2]!), 0n)).toBe(balance);
    expect(units(rows.at(-1)![4]!)).toBe(balance);
    const sent = rows.find((r) => r[2]!.startsWith('-'))!;
    expect(sent[3]).toBe('0.0002');
    expect(sent[6]).toBe('March rent');
    expect(units(sent[2]!)).toBe(-(COIN + COIN / 4n + 20_000n));
    expect(rows[0]![7]).toBe('160.00'); // 2 LTC at 80 USD
    expect(rows.every((r) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(r[0]!))).toBe(true);
    // a range that ends before the chain began keeps no row
    const books = await walletBooks(deps, walletId);
    expect(parseCsv(booksCsv(books, { ticker: 'LTC (regtest)', decimals: 8 }, { to: '2000-01-01' }).replace(/^\uFEFF/, ''))).toHaveLength(1);
  });
});

describe('labels', () => {
  it('records each change in the audit log', () => {
    const before = store.auditLog().length;
    const addr = store.addresses(walletId).find((a) => !a.change && a.index === 0)!.address;
    setLabel(deps, walletId, { type: 'addr', ref: addr, label: 'from the exchange' });
    const entries = store.auditLog().slice(before);
    expect(entries.map((e) => e.action)).toEqual(['label.set']);
    expect(entries[0]!.detail).toContain('"from the exchange"');
  });

  it('exported as BIP329 and imported into a fresh desk, are the same labels', async () => {
    const books = await walletBooks(deps, walletId);
    const utxo = (await walletUnspent(deps, walletId))[0]!;
    setLabel(deps, walletId, { type: 'tx', ref: books[0]!.txid, label: 'seed capital, "first" deposit' });
    setLabel(deps, walletId, { type: 'output', ref: `${utxo.txid}:${utxo.vout}`, label: 'cold reserve', spendable: false });
    setLabel(deps, walletId, { type: 'xpub', ref: alice.xpub, label: 'Alice, CFO' });
    const out = exportLabels(store, walletId);
    const lines = out.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; origin: string });
    expect(lines.map((l) => l.type).sort()).toEqual(['addr', 'output', 'tx', 'tx', 'xpub']); // the payment's purpose goes out as its tx's label
    expect(lines.every((l) => l.origin.startsWith('sh(multi(2,['))).toBe(true);

    const fresh = openStore(join(dir, 'fresh.sqlite'));
    try {
      const freshDeps = { store: fresh, api, actor: 'auditor' };
      const w = await createWallet(freshDeps, { coin: 'litecoin', network: 'regtest', name: 'Books', m: 2, cosigners });
      // the fresh desk finds the used addresses as it hands out the next one (and the change address the payment used)
      await nextReceiveAddress(freshDeps, w.id);
      await nextChangeAddress(freshDeps, w.id, new Set());
      // a line of another wallet's address, and one about another wallet's keys: counted and left
      const foreign = [
        JSON.stringify({ type: 'addr', ref: await node.newAddress('legacy'), label: 'not ours' }),
        JSON.stringify({ type: 'tx', ref: books[0]!.txid, label: 'elsewhere', origin: 'wsh(sortedmulti(2,[00000000]xpubOther))' }),
      ].join('\n');
      const result = await importLabels(freshDeps, w.id, `${out.text}${foreign}\n`, out.fileName);
      expect(result).toMatchObject({ imported: 5, ignored: 2 });
      expect(result.message).toBe("Imported 5 labels into Books; ignored 2 lines about other wallets' addresses, transactions or keys.");
      expect(exportLabels(fresh, w.id).text).toBe(out.text); // the same records, the same origin
      expect(fresh.auditLog().map((e) => e.action)).toContain('labels.import');

      // one bad line refuses the file: nothing written, every bad line named
      const bad = `${out.text}{"type":"addr"}\nnot json\n{"type":"tx","ref":"zz","label":"x"}\n`;
      await expect(importLabels(freshDeps, w.id, bad, 'bad.jsonl')).rejects.toThrow(/bad.jsonl is not a BIP329 label file; nothing was imported. 3 bad lines: line 6: ref: .*; line 7: not JSON; line 8: ref: "zz" is not a tx reference/);
      // a wallet set-up file dropped here is named, with where it goes
      await expect(importLabels(freshDeps, w.id, 'BSMS 1.0\nwsh(sortedmulti(2,...))\n/0/*,/1/*\nbc1q\n', 'wallet.bsms')).rejects.toThrow(
        'wallet.bsms: not a BIP329 labels file: it is a BSMS wallet set-up file (descriptor record); import it under Wallets → New wallet → "Import set-up file"; nothing was imported',
      );
    } finally {
      fresh.close();
    }
  });
});

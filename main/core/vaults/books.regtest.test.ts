// Issue 27's "watched like any vault": every screen that lists a wallet serves a miniscript vault
// (treasuryVault: 2 of alice, bob, carol now, or 1 of dave, erin after 144 blocks) on litecoind
// -regtest with the embedded service (USD pinned at 80). The vault receives two payments and pays
// one out on the primary path with a purpose (signed by two files, submitted, confirmed); then,
// through the bridge channels the screens call: its balance and unspent outputs are the node's own
// scantxoutset of the vault's descriptor's scripts; its history has the three transactions with
// the purpose; its books CSV the three rows with running balance and unit; its BIP329 labels carry
// the vault's own descriptor as origin and restore into a second desk that imported the vault from
// its exported descriptor; the audit export names the payment.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../../dev/desk-testing/csv-reader.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { fundWalletCoin, signAndSend, startVaultDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { bytesToHex, chainParams } from '../../../shared/coins/index.ts';
import { vaultAddress } from '../../../shared/coins/vault-policy.ts';
import { parseVaultDescriptor } from '../../../shared/files/miniscript-descriptor.ts';
import type { ExportedFile, LabelImportView, UnspentOutput, WalletDetail, WalletHistory, WalletSummary } from '../../bridge/contract.ts';
import { dispatch } from '../../bridge/dispatch.ts';
import { createHandlers } from '../../bridge/handlers.ts';
import { ServiceConnection } from '../chains/connection.ts';
import { proposePayment } from '../payments/propose.ts';
import { refreshConfirmations } from '../payments/submit.ts';
import { MemorySecretStore } from '../secrets.ts';
import { openStore, type CoordinatorStore, type PaymentRow } from '../store/store.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const NAME = 'Books vault';
const PURPOSE = 'Auditor\'s fee, "Q3"';
const [alice, carol, dave] = ['alice', 'carol', 'dave'].map((n) => testCosigner(n)) as [ReturnType<typeof testCosigner>, ReturnType<typeof testCosigner>, ReturnType<typeof testCosigner>];

let fixture: WalletDesk;
let vaultId = '';
const deposits: { txid: string; vout: number; height: number; amount: bigint }[] = [];
let payment: PaymentRow;
let descriptor = '';

/** A desk's screens: through the bridge boundary (each channel's input validated as the renderer's is). */
const screensOf = (store: CoordinatorStore) => {
  const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: fixture.desk.url, actor: 'treasurer' });
  const h = createHandlers({ store, connection, actor: 'treasurer' });
  return async <T>(channel: string, input: unknown): Promise<T> => {
    const r = await dispatch(h, channel, input);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };
};
let screen: ReturnType<typeof screensOf>;
/** Whole units written as decimals in the CSV (8 places). */
const units = (s: string) => BigInt(Math.round(Number(s) * 1e8));

beforeAll(async () => {
  fixture = await startVaultDesk(NAME, { usdRate: 80 });
  vaultId = fixture.walletId;
  screen = screensOf(fixture.store);
  for (const amount of [2n * COIN, COIN + COIN / 2n]) deposits.push({ ...(await fundWalletCoin(fixture.desk, fixture.deps, vaultId, amount)), amount });
  const to = await fixture.desk.node.newAddress('bech32');
  const proposed = await proposePayment(fixture.deps, vaultId, { to, amount: COIN / 2n, minersFee: 0n, feeRate: 3n, purpose: PURPOSE });
  await signAndSend(fixture.deps, proposed, [alice, carol]);
  await fixture.desk.mine(1);
  payment = await refreshConfirmations(fixture.deps, proposed.id);
  descriptor = (await screen<ExportedFile>('vaults.export', { wallet_id: vaultId, format: 'descriptor' })).text.trim();
}, 300_000);
afterAll(async () => {
  await fixture?.dispose();
});

describe('a vault on every screen that lists a wallet', () => {
  it('the payment is confirmed, spent on the primary path', async () => {
    expect(payment.state).toBe('confirmed');
    // Every input: a final sequence (no timelock) and the 2-of-3's witness (dummy, two signatures, the script).
    const onChain = await fixture.desk.node.rpc.call<{ vin: { sequence: number; txinwitness: string[] }[] }>('getrawtransaction', [payment.txid, true]);
    expect(onChain.vin.map((v) => [v.sequence, v.txinwitness.length])).toEqual(onChain.vin.map(() => [0xffffffff, 4]));
  });

  it('balance and unspent outputs are the node\'s scantxoutset of raw() scripts of the vault\'s descriptor', async () => {
    // The first 20 receive and change scripts of the EXPORTED descriptor, not the desk's stored rows.
    const policy = parseVaultDescriptor(descriptor).policy;
    const scripts = [false, true].flatMap((change) => Array.from({ length: 20 }, (_, i) => bytesToHex(vaultAddress(params, policy, change, i).scriptPubKey)));
    const scan = await fixture.desk.node.rpc.call<{ success: boolean; unspents: { txid: string; vout: number; amount: number }[]; total_amount: number }>('scantxoutset', ['start', scripts.map((s) => `raw(${s})`)]);
    expect(scan.success).toBe(true);
    const sats = (ltc: number) => BigInt(Math.round(ltc * 1e8));
    const nodeCoins = scan.unspents.map((u) => `${u.txid}:${u.vout}=${sats(u.amount)}`).sort();
    expect(nodeCoins).toHaveLength(2); // the second deposit, and the payment's change

    const detail = await screen<WalletDetail>('wallets.get', { wallet_id: vaultId });
    expect(detail.funds).toEqual({ balance: sats(scan.total_amount), unconfirmed_balance: 0n, usd_balance: Math.round((Number(sats(scan.total_amount)) / 1e8) * 80 * 100) / 100 }); // the service's cents
    expect(detail.funds!.balance).toBe(3n * COIN + COIN / 2n - COIN / 2n - payment.minersFee);
    const listed = (await screen<WalletSummary[]>('wallets.list', {})).find((w) => w.id === vaultId)!;
    expect(listed.name).toBe(NAME);
    const unspent = await screen<UnspentOutput[]>('wallets.unspent', { wallet_id: vaultId });
    expect(unspent.map((u) => `${u.txid}:${u.vout}=${u.amount}`).sort()).toEqual(nodeCoins);
  });

  it('history lists the three transactions with their amounts, newest first, the payment with its purpose', async () => {
    const history = await screen<WalletHistory>('wallets.history', { wallet_id: vaultId });
    expect(history.total).toBe(3);
    expect(history.entries.map((e) => [e.txid, e.amount, e.confirmations, e.purpose])).toEqual([
      [payment.txid, -(COIN / 2n + payment.minersFee), 1, PURPOSE],
      [deposits[1]!.txid, COIN + COIN / 2n, 2, null],
      [deposits[0]!.txid, 2n * COIN, 3, null],
    ]);
  });

  it('the books CSV for the range has the three rows: running balance, the unit, the fee and the purpose', async () => {
    const series = await screen<{ time: number }[]>('books.series', { wallet_id: vaultId });
    const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
    const range = { from: day(series[0]!.time), to: day(series.at(-1)!.time) };
    const { file_name, text } = await screen<ExportedFile>('books.export', { wallet_id: vaultId, ...range });
    expect(file_name).toBe(`Books-vault-books-${range.from}-to-${range.to}.csv`);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(['date_utc', 'txid', 'amount', 'fee', 'balance_after', 'unit', 'label', 'usd_value']);
    expect(rows.map((r) => [r[1], units(r[2]!), r[3] === '' ? null : units(r[3]!), units(r[4]!), r[5], r[6]])).toEqual([
      [deposits[0]!.txid, 2n * COIN, null, 2n * COIN, 'LTC (regtest)', ''],
      [deposits[1]!.txid, COIN + COIN / 2n, null, 3n * COIN + COIN / 2n, 'LTC (regtest)', ''],
      [payment.txid, -(COIN / 2n + payment.minersFee), payment.minersFee, 3n * COIN - payment.minersFee, 'LTC (regtest)', PURPOSE],
    ]);
    expect(rows[0]![7]).toBe('160.00'); // 2 LTC at 80 USD
    // A range before the chain keeps the header alone.
    expect(parseCsv((await screen<ExportedFile>('books.export', { wallet_id: vaultId, to: '2000-01-01' })).text)).toHaveLength(1);
  });

  it('the audit export names the payment, under the vault\'s name', async () => {
    const { text } = await screen<ExportedFile>('audit.export', { wallet_id: vaultId });
    const [header, ...rows] = parseCsv(text);
    const col = (name: string) => header!.indexOf(name);
    const ofPayment = rows.filter((r) => r[col('payment')] === payment.id);
    expect(ofPayment.map((r) => r[col('action')]).sort()).toEqual(['label.set', 'payment.broadcast', 'payment.confirmed', 'payment.propose', 'payment.ready', 'signature.import', 'signature.import'].sort());
    expect(ofPayment.every((r) => r[col('wallet')] === NAME && r[col('wallet_id')] === vaultId)).toBe(true);
    const propose = ofPayment.find((r) => r[col('action')] === 'payment.propose')!;
    expect(propose[col('details')]).toContain(`payment ${payment.id}: 0.5 LTC`);
    expect(propose[col('details')]).toContain(payment.to);
    expect(ofPayment.find((r) => r[col('action')] === 'label.set')![col('details')]).toContain(PURPOSE);
  });
});

describe('a vault\'s labels', () => {
  it('go out as BIP329 with the vault\'s own descriptor as origin, and restore into a second desk that imported the vault from that descriptor', async () => {
    const receive0 = fixture.store.addresses(vaultId).find((a) => !a.change && a.index === 0)!.address;
    const coin = deposits[1]!;
    await screen('labels.set', { wallet_id: vaultId, type: 'addr', ref: receive0, label: 'from the exchange' });
    await screen('labels.set', { wallet_id: vaultId, type: 'tx', ref: deposits[0]!.txid, label: 'seed capital' });
    await screen('labels.set', { wallet_id: vaultId, type: 'output', ref: `${coin.txid}:${coin.vout}`, label: 'cold reserve', spendable: false });
    await screen('labels.set', { wallet_id: vaultId, type: 'xpub', ref: dave.xpub, label: 'Dave, the lawyer' });
    const out = await screen<ExportedFile>('labels.export', { wallet_id: vaultId });
    const records = out.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; ref: string; label: string; origin: string });
    expect(records.map((r) => [r.type, r.ref, r.label])).toEqual(
      [
        ['addr', receive0, 'from the exchange'],
        ['output', `${coin.txid}:${coin.vout}`, 'cold reserve'],
        ['tx', deposits[0]!.txid, 'seed capital'],
        ['tx', payment.txid, PURPOSE], // the payment's purpose, as its transaction's label
        ['xpub', dave.xpub, 'Dave, the lawyer'],
      ].sort((a, b) => (a[0] === b[0] ? (a[1]! < b[1]! ? -1 : 1) : a[0]! < b[0]! ? -1 : 1)),
    );
    // The origin is the descriptor the vault exports (its miniscript), not a multisig reading of its keys.
    expect(records.every((r) => r.origin === descriptor)).toBe(true);

    const second = openStore(join(fixture.desk.dir, 'second-desk.sqlite'));
    try {
      const secondScreen = screensOf(second);
      const w = await secondScreen<WalletSummary>('vaults.create', { template: 'import', coin: 'litecoin', network: 'regtest', name: 'Vault (auditor)', text: `${descriptor}\n`, birthday: { source: 'genesis' } });
      // Straight after the import, before any address walk: the desk knows receive 0 and change 0 only,
      // and the coin labelled 'cold reserve' is at receive 1.
      expect(second.addresses(w.id).map((a) => `${a.change ? 1 : 0}/${a.index}`).sort()).toEqual(['0/0', '1/0']);
      const imported = await secondScreen<LabelImportView>('labels.import', { wallet_id: w.id, file: { name: out.file_name, text: out.text } });
      expect(imported).toMatchObject({ imported: 5, ignored: 0 });
      expect((await secondScreen<ExportedFile>('labels.export', { wallet_id: w.id })).text).toBe(out.text);
      expect((await secondScreen<UnspentOutput[]>('wallets.unspent', { wallet_id: w.id })).find((u) => u.txid === coin.txid)?.frozen).toBe(true);
      // Its books read as the first desk's, labels and all; only the fee is blank (this desk did not send the payment).
      const books = async (ask: typeof screen, id: string) => parseCsv((await ask<ExportedFile>('books.export', { wallet_id: id })).text).map((r) => [...r.slice(0, 3), ...r.slice(4)]);
      const restored = await books(secondScreen, w.id);
      expect(restored).toEqual(await books(screen, vaultId));
      expect(restored.slice(1).map((r) => r[5])).toEqual(['seed capital', '', PURPOSE]);
      // The same lines from another wallet (alice and carol's 2-of-2, by its origin): counted and left.
      const foreign = out.text.replaceAll(JSON.stringify(descriptor), JSON.stringify(`wsh(multi(2,${alice.xpub}/<0;1>/*,${carol.xpub}/<0;1>/*))`));
      expect(await secondScreen<LabelImportView>('labels.import', { wallet_id: w.id, file: { name: 'other.jsonl', text: foreign } })).toMatchObject({ imported: 0, ignored: 5 });
    } finally {
      second.close();
    }
  });
});

// A coin is one row of the coin table: this test adds a FICTIONAL coin, "woofcoin" (WOOF), as one
// row of shared/coins/coin-data.ts, here only, before anything else loads, and shows that the
// service and the desk accept it through their ordinary code paths, up to a 2-of-3 payment signed
// by two co-signers' files and confirmed on chain. Its script rules are Litecoin-regtest-compatible
// (legacy sighash, Bitcoin transactions), its prefixes its own, so it runs against litecoind
// -regtest like the real Bitcoin-rules coins.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as CoinData from '../../shared/coins/coin-data.ts';
import type { ExportedFile, ImportResult, OpenedRequestView, PaymentDetail, WalletDetail } from '../bridge/contract.ts';

vi.mock('../../shared/coins/coin-data.ts', async (importOriginal) => {
  const original = await importOriginal<typeof CoinData>();
  const TPUB = 0x043587cf;
  const TPRV = 0x04358394;
  // Dogecoin-like: D... and 9.../A... addresses on every network, so nobody takes them for litecoin's.
  const net = { p2pkh: [0x1e], p2sh: [0x16], wif: 0xf1, xpub: [TPUB], xprv: [TPRV] };
  const woofcoin: CoinData.UtxoCoinRow = {
    family: 'utxo',
    ticker: 'WOOF',
    decimals: 8,
    coingeckoId: null,
    uriScheme: 'woofcoin',
    smallestUnit: 'shibe',
    ledger: null,
    testCoin: false,
    psbt: false,
    segwit: false,
    bip125: false,
    replacementsByDefault: false,
    specialTx: null,
    caravan: false,
    chain: {
      // litecoind's dust relay rule, since litecoind carries its transactions here.
      dustLimit: 5460n,
      bip44CoinType: 3,
      sighash: { algorithm: 'legacy', hashType: 0x01 },
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 60,
      networks: { mainnet: net, testnet: net, regtest: net },
      // Its regtest is litecoind's: the service checks the node's block 0 against this.
      identity: {
        mainnet: { chains: ['main'], genesis: [] },
        testnet: { chains: ['test'], genesis: [] },
        regtest: { chains: ['regtest'], genesis: ['530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9'] },
      },
    },
  };
  return { ...original, COIN_TABLE: { ...original.COIN_TABLE, woofcoin } };
});

const { COIN_NAMES, LEDGER_UTXO_COIN_NAMES, UTXO_COIN_NAMES, addressToScript, bytesToHex, chainParams } = await import('../../shared/coins/index.ts');
const { deriveAddress } = await import('../../shared/coins/multisig-address.ts');
const { startRegtestDesk } = await import('../../dev/desk-testing/regtest.ts');
const { signRequest } = await import('./software-signer.ts');
const { openStore } = await import('./store/store.ts');
const { ServiceConnection } = await import('./chains/connection.ts');
const { MemorySecretStore } = await import('./secrets.ts');
const { testCosigner } = await import('../../dev/desk-testing/keys.ts');
const { createHandlers } = await import('../bridge/handlers.ts');
const { dispatch } = await import('../bridge/dispatch.ts');
const { inputs } = await import('../bridge/contract.ts');

type UtxoCoinName = CoinData.UtxoCoinName;
const WOOF = 'woofcoin' as UtxoCoinName;
const COIN = 100_000_000n;

let desk: Awaited<ReturnType<typeof startRegtestDesk>>;
let store: ReturnType<typeof openStore>;
let handlers: ReturnType<typeof createHandlers>;

beforeAll(async () => {
  desk = await startRegtestDesk({ utxoCoin: WOOF });
  store = openStore(join(desk.dir, 'desk.sqlite'));
  const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: desk.url, actor: 'treasurer' });
  handlers = createHandlers({ store, connection, actor: 'treasurer' });
});
afterAll(async () => {
  store?.close();
  await desk?.dispose();
});

/** Through the bridge boundary: the channel's zod schema (built from the table) validates the input. */
async function bridge<T>(channel: string, input: unknown): Promise<T> {
  const r = await dispatch(handlers, channel, input);
  if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
}

/** A channel's refusal, as the renderer shows it. */
async function refusal(channel: string, input: unknown): Promise<{ code: string; message: string }> {
  const r = await dispatch(handlers, channel, input);
  if (r.ok) throw new Error(`${channel} was expected to refuse`);
  return r.error;
}

describe('a fictional coin added as one row of the coin table', () => {
  const params = chainParams(WOOF, 'regtest');
  const [alice, bob, carol] = [testCosigner('alice', params), testCosigner('bob', params), testCosigner('carol', params)];
  const cosigners = [alice, bob, carol];

  it('is in every list derived from the table, and only where its row says', () => {
    expect(COIN_NAMES).toContain(WOOF);
    expect(UTXO_COIN_NAMES).toContain(WOOF);
    expect(LEDGER_UTXO_COIN_NAMES).not.toContain(WOOF);
    expect(inputs['wallets.create'].shape.coin.options).toContain(WOOF);
    expect(inputs['ledger.xpub'].shape.coin.options).not.toContain(WOOF);
  });

  it('the service serves it: status, balance, unspent outputs and a 2-of-3 multisig payment', async () => {
    // The co-signers' keys far below the wallet's addresses, so the desk's wallet below starts clean.
    const { address, publicKeys } = deriveAddress(params, 2, cosigners.map((c) => c.xpub), false, 1000);
    expect(address).toMatch(/^[9A]/);
    await desk.node.fundScript(addressToScript(params, address), 2n * COIN);
    await desk.node.mine(1);
    await desk.synced();

    expect((await desk.api.status()).coins.map((c) => c.coin)).toContain(WOOF);
    expect((await desk.api.balance(WOOF, address)).balance).toBe(2n * COIN);
    const utxos = await desk.api.utxos(WOOF, [address]);
    expect(utxos.utxos.map((u) => u.amount)).toEqual([2n * COIN]);
    const payee = deriveAddress(params, 2, cosigners.map((c) => c.xpub), false, 1001).address;
    const created = await desk.api.createMultisig(WOOF, {
      number_of_required_signatures: 2,
      amount: COIN,
      to: payee,
      redeem_scripts: [{ public_keys: publicKeys.map((k) => bytesToHex(k)) }],
    });
    expect(created.hashes.length).toBeGreaterThan(0);
  });

  const dave = testCosigner('dave', params); // a key that is no co-signer of the wallet
  let walletId = '';

  it('the desk lists it, makes a wallet for it and shows its ticker', async () => {
    const coins = await bridge<{ coin: string; ticker: string; family: string; ledger: boolean }[]>('coins.list', {});
    expect(coins.find((c) => c.coin === WOOF)).toMatchObject({ ticker: 'WOOF', family: 'utxo', ledger: false });

    const w = await bridge<{ id: string; coin: string; unit: { ticker: string } }>('wallets.create', {
      name: 'Woof treasury',
      coin: WOOF,
      network: 'regtest',
      m: 2,
      cosigners: cosigners.map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivation_path: c.derivationPath })),
    });
    expect(w).toMatchObject({ coin: WOOF, unit: { ticker: 'WOOF (regtest)' } });
    walletId = w.id;

    const receive = await bridge<{ address: string; uri: string }>('wallets.receiveAddress', { wallet_id: w.id });
    expect(receive.address).toMatch(/^[9A]/);
    expect(receive.uri).toBe(`woofcoin:${receive.address}`);
    await desk.node.fundScript(addressToScript(params, receive.address), 3n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    const detail = await bridge<{ funds: { balance: bigint }; unit: { ticker: string } }>('wallets.get', { wallet_id: w.id });
    expect(detail.funds.balance).toBe(3n * COIN);
    expect(detail.unit.ticker).toBe('WOOF (regtest)');
    expect((await bridge<{ amount: bigint }[]>('wallets.unspent', { wallet_id: w.id })).map((u) => u.amount)).toEqual([3n * COIN]);
  });

  it('pays from the wallet: propose, two co-signers\' files, submit, confirmed in WOOF; a stranger\'s file is refused', async () => {
    // The payee: a WOOF address of a key outside the wallet.
    const to = deriveAddress(params, 1, [dave.xpub], false, 0).address;
    const amount = COIN + COIN / 4n;
    const fee = 20_000n;
    const proposed = await bridge<PaymentDetail>('payments.propose', { wallet_id: walletId, to, amount, miners_fee: fee });
    expect(proposed).toMatchObject({ state: 'awaiting_signatures', signed: 0, required: 2, amount, miners_fee: fee, unit: { ticker: 'WOOF (regtest)', decimals: 8 } });
    expect(proposed.outputs.map((o) => [o.purpose, o.amount])).toEqual([
      ['payment', amount],
      ['change', 3n * COIN - amount - fee],
    ]);
    expect(proposed.outputs.every((o) => /^[9A]/.test(o.address))).toBe(true);

    // The signing-request file, as the treasurer exports it and a co-signer opens it.
    const request = await bridge<ExportedFile>('payments.exportRequest', { payment_id: proposed.id });
    expect(JSON.parse(request.text)).toMatchObject({ format: 'countersign-signing-request', coin: WOOF, network: 'regtest', wallet: { m: 2 } });
    const opened = await bridge<OpenedRequestView>('cosigner.open', { text: request.text });
    expect(opened).toMatchObject({ coin: WOOF, unit: { ticker: 'WOOF (regtest)' } });
    expect(opened.outputs[0]).toMatchObject({ purpose: 'payment', amount });

    // Two co-signers sign with their software keys (Alice her master key, Bob his account key).
    const a = signRequest(request.text, { xprv: alice.masterXprv });
    const b = signRequest(request.text, { xprv: bob.accountXprv });
    expect([a.signer, b.signer]).toEqual(['alice', 'bob']);

    // A stranger's key signs nothing on the co-signer's side, and a file naming the stranger as its
    // signer is refused by the desk: nothing is collected, nothing can be submitted or broadcast.
    expect(() => signRequest(request.text, { xprv: dave.accountXprv })).toThrow(/not one of the wallet's co-signers/);
    const stranger = JSON.parse(a.file) as { signer: { name: string; xpub: string } };
    stranger.signer = { name: 'dave', xpub: dave.xpub };
    const [refused] = await bridge<ImportResult[]>('payments.importSignatures', { files: [{ name: 'signature-dave.json', text: JSON.stringify(stranger) }] });
    expect(refused).toMatchObject({ file: 'signature-dave.json', status: 'refused', refusal: 'foreign' });
    expect(refused!.message).toMatch(/^signature-dave.json: its signer key .* is not a co-signer of this wallet$/);
    expect(await bridge<PaymentDetail>('payments.get', { payment_id: proposed.id })).toMatchObject({ state: 'awaiting_signatures', signed: 0, txid: null });
    expect(await refusal('payments.submit', { payment_id: proposed.id })).toMatchObject({ code: 'bad_state', message: expect.stringMatching(/signatures are missing/) });
    expect(await desk.node.rpc.call<string[]>('getrawmempool', [])).toEqual([]);
    expect(store.auditLog().map((e) => e.action)).not.toContain('payment.broadcast');

    // The desk imports both co-signers' files at once, submits, and the node confirms after a block.
    const imported = await bridge<ImportResult[]>('payments.importSignatures', { files: [{ name: a.fileName, text: a.file }, { name: b.fileName, text: b.file }] });
    expect(imported.map((r) => [r.status, r.message])).toEqual([
      ['imported', `${a.fileName}: 1 signature by alice imported`],
      ['imported', `${b.fileName}: 1 signature by bob imported`],
    ]);
    expect(await bridge<PaymentDetail>('payments.get', { payment_id: proposed.id })).toMatchObject({ state: 'ready', signed: 2 });
    const sent = await bridge<PaymentDetail>('payments.submit', { payment_id: proposed.id });
    expect(sent.state).toBe('broadcast');
    expect(sent.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(await desk.node.rpc.call<string[]>('getrawmempool', [])).toEqual([sent.txid]);
    await desk.mine(1);

    const done = await bridge<PaymentDetail>('payments.get', { payment_id: proposed.id });
    expect(done).toMatchObject({ state: 'confirmed', confirmations: 1, txid: sent.txid, amount, miners_fee: fee, unit: { ticker: 'WOOF (regtest)', decimals: 8 } });
    expect(done.cosigners).toEqual([
      { name: 'alice', signed: true },
      { name: 'bob', signed: true },
      { name: 'carol', signed: false },
    ]);
    const onChain = await desk.node.rpc.call<{ confirmations: number; vout: { value: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [sent.txid, true]);
    expect(onChain.confirmations).toBe(1);
    expect(onChain.vout.map((v) => [v.scriptPubKey.hex, BigInt(Math.round(v.value * 1e8))])).toEqual(
      done.outputs.map((o) => [bytesToHex(addressToScript(params, o.address)), o.amount]),
    );
    // The wallet keeps its change, in WOOF.
    const after = await bridge<WalletDetail>('wallets.get', { wallet_id: walletId });
    expect(after).toMatchObject({ funds: { balance: 3n * COIN - amount - fee }, unit: { ticker: 'WOOF (regtest)' } });
    expect(store.auditLog().map((e) => e.action)).toEqual(expect.arrayContaining(['payment.propose', 'signature.import', 'payment.ready', 'payment.broadcast', 'payment.confirmed']));
  });
});

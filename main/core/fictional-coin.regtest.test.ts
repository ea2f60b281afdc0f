// A coin is one row of the coin table: this test adds a FICTIONAL coin, "woofcoin" (WOOF), as one
// row of shared/coins/coin-data.ts, here only, before anything else loads, and shows that the
// service and the desk accept it through their ordinary code paths. Its script rules are
// Litecoin-regtest-compatible (legacy sighash, Bitcoin transactions), its prefixes its own, so it
// runs against litecoind -regtest like the real Bitcoin-rules coins.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as CoinData from '../../shared/coins/coin-data.ts';

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
    ledger: null,
    testCoin: false,
    psbt: false,
    segwit: false,
    bip125: false,
    specialTx: null,
    caravan: false,
    chain: {
      // litecoind's dust relay rule, since litecoind carries its transactions here.
      dustLimit: 5460n,
      bip44CoinType: 3,
      sighash: { algorithm: 'legacy', hashType: 0x01 },
      txFormat: 'bitcoin',
      txVersion: 1,
      networks: { mainnet: net, testnet: net, regtest: net },
    },
  };
  return { ...original, COIN_TABLE: { ...original.COIN_TABLE, woofcoin } };
});

const { COIN_NAMES, LEDGER_UTXO_COIN_NAMES, UTXO_COIN_NAMES, addressToScript, bytesToHex, chainParams } = await import('../../shared/coins/index.ts');
const { deriveAddress } = await import('../../shared/coins/multisig-address.ts');
const { fundedNode } = await import('../../dev/chains/litecoind.ts');
const { startDevService } = await import('../../dev/dev-service.ts');
const { openStore } = await import('./store/store.ts');
const { ServiceConnection } = await import('./connection.ts');
const { MemorySecretStore } = await import('./secrets.ts');
const { testCosigner } = await import('./testing/keys.ts');
const { createHandlers } = await import('../bridge/handlers.ts');
const { dispatch } = await import('../bridge/dispatch.ts');
const { inputs } = await import('../bridge/contract.ts');

type UtxoCoinName = CoinData.UtxoCoinName;
const WOOF = 'woofcoin' as UtxoCoinName;
const COIN = 100_000_000n;

type Node = Awaited<ReturnType<typeof fundedNode>>;
type Dev = Awaited<ReturnType<typeof startDevService>>;
let node: Node;
let dev: Dev;
let dir: string;
let handlers: ReturnType<typeof createHandlers>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-woofcoin-'));
  node = await fundedNode();
  dev = await startDevService(node, dir, { pollIntervalMs: 100, utxoCoin: WOOF });
  const store = openStore(join(dir, 'desk.sqlite'));
  const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: dev.url, actor: 'treasurer' });
  handlers = createHandlers({ store, connection, actor: 'treasurer' });
});
afterAll(async () => {
  await dev?.service.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Through the bridge boundary: the channel's zod schema (built from the table) validates the input. */
async function bridge<T>(channel: string, input: unknown): Promise<T> {
  const r = await dispatch(handlers, channel, input);
  if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
}

describe('a fictional coin added as one row of the coin table', () => {
  const params = chainParams(WOOF, 'regtest');
  const cosigners = [testCosigner('alice', params), testCosigner('bob', params), testCosigner('carol', params)];

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
    await node.fundScript(addressToScript(params, address), 2n * COIN);
    await node.mine(1);
    await dev.synced();

    expect((await dev.api.status()).coins.map((c) => c.coin)).toContain(WOOF);
    expect((await dev.api.balance(WOOF, address)).balance).toBe(2n * COIN);
    const utxos = await dev.api.utxos(WOOF, [address]);
    expect(utxos.utxos.map((u) => u.amount)).toEqual([2n * COIN]);
    const payee = deriveAddress(params, 2, cosigners.map((c) => c.xpub), false, 1001).address;
    const created = await dev.api.createMultisig(WOOF, {
      number_of_required_signatures: 2,
      amount: COIN,
      to: payee,
      redeem_scripts: [{ public_keys: publicKeys.map((k) => bytesToHex(k)) }],
    });
    expect(created.hashes.length).toBeGreaterThan(0);
  });

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

    const receive = await bridge<{ address: string; uri: string }>('wallets.receiveAddress', { wallet_id: w.id });
    expect(receive.address).toMatch(/^[9A]/);
    expect(receive.uri).toBe(`woofcoin:${receive.address}`);
    await node.fundScript(addressToScript(params, receive.address), 3n * COIN);
    await node.mine(1);
    await dev.synced();
    const detail = await bridge<{ funds: { balance: bigint }; unit: { ticker: string } }>('wallets.get', { wallet_id: w.id });
    expect(detail.funds.balance).toBe(3n * COIN);
    expect(detail.unit.ticker).toBe('WOOF (regtest)');
    expect((await bridge<{ amount: bigint }[]>('wallets.unspent', { wallet_id: w.id })).map((u) => u.amount)).toEqual([3n * COIN]);
  });
});

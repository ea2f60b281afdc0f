// Builds a regtest chain of many small P2PKH payments, fast: transactions are built and signed here
// with shared/coins (no wallet round-trips) and submitted in JSON-RPC batches.
//
// Shape: the first coinbases (50 LTC each, before the 150-block halving) are split by fan-out
// transactions into one coin per "lane"; each lane then pays a small amount to one of a few hot
// addresses and its change to itself, generation after generation. A block is mined every
// ~BLOCK_TXS payments, so no unconfirmed chain is deeper than a few transactions (limit 25).
import type { RegtestNode } from '../../dev/chains/litecoind.ts';
import { coinsToUnits } from '../../service/chains/utxo/rpc-client.ts';
import { testKey, type TestKey } from '../../service/test/keys.ts';
import {
  addressToScript,
  chainParams,
  compileScript,
  encodeTx,
  hexToBytes,
  bytesToHex,
  p2pkhAddressOfPublicKey,
  signatureHash,
  signDer,
  txidHex,
  withHashType,
} from '../../shared/coins/index.ts';
import type { Tx, TxOutput } from '../../shared/coins/index.ts';
import { heightReaching } from './scale-stages.ts';
import { txCounts } from './tx-counts.ts';

export const params = chainParams('litecoin', 'regtest');

const LANES_PER_FANOUT = 500; // 500 P2PKH outputs: ~17 kB, far below the 100 kB standardness limit
const MAX_GENERATIONS = 20; // more lanes rather than deeper lanes: keeps every lane's coin sufficient
const BLOCK_TXS = 2000; // ~450 kB of 226-byte payments: inside the legacy 1 MB block
const SUBMIT_BATCH = 250;
const HOT_ADDRESSES = 5;
const LANE_KEYS = 100;
const PAYMENT = 100_000n;
const PAYMENT_FEE = 10_000n; // ~44 units/byte: above litecoind's relay minimum, below maxfeerate
const FANOUT_FEE = 200_000n;
const COINBASE_MATURITY = 100;

interface Signer {
  key: TestKey;
  address: string;
  script: Uint8Array;
}

interface Coin {
  txid: string;
  vout: number;
  value: bigint;
  owner: Signer;
}

export interface BenchChain {
  tipHeight: number;
  /** Transactions per height, coinbases included, as the node reports them (nTx). */
  txsPerHeight: number[];
  totalTxs: number;
  paymentTxs: number;
  fanoutTxs: number;
  lanes: number;
  generations: number;
  blocksWithPayments: number;
  addresses: number;
  /** The address with the most history rows, its row count and its confirmed balance. */
  hot: { address: string; rows: number; balance: bigint };
  /** A valid address that never appears on the chain. */
  emptyAddress: string;
  buildMs: number;
}

function signer(seed: string): Signer {
  const key = testKey(seed);
  const address = p2pkhAddressOfPublicKey(params, key.publicKey);
  return { key, address, script: addressToScript(params, address) };
}

/** A signed one-input P2PKH spend; returns the raw hex and its txid. */
function spend(coin: Coin, outputs: TxOutput[]): { hex: string; txid: string } {
  const tx: Tx = {
    version: params.txVersion,
    inputs: [{ prevTxid: hexToBytes(coin.txid), vout: coin.vout, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
    outputs,
    locktime: 0,
  };
  const hash = signatureHash(params, tx, 0, { scriptCode: coin.owner.script });
  const sig = withHashType(signDer(hash, coin.owner.key.privateKey), params.hashType);
  tx.inputs[0]!.scriptSig = compileScript([sig, coin.owner.key.publicKey]);
  return { hex: bytesToHex(encodeTx(tx)), txid: txidHex(tx) };
}

/** Submits raw transactions in order; the node handles a batch's entries one after another. */
class Submitter {
  private pending: string[] = [];
  private inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly node: RegtestNode) {}

  add(hex: string): void {
    this.pending.push(hex);
    if (this.pending.length >= SUBMIT_BATCH) this.flush();
  }

  /** Sends what is pending behind what is in flight, so signing overlaps the node's validation. */
  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.inFlight = this.inFlight.then(async () => {
      const results = await this.node.rpc.batch<string>(batch.map((hex) => ({ method: 'sendrawtransaction', params: [hex] })));
      const failed = results.find((r) => 'error' in r);
      if (failed && 'error' in failed) throw new Error(`litecoind refused a bench transaction: ${failed.error.message}`);
    });
    this.inFlight.catch(() => undefined); // surfaced by drain()
  }

  async drain(): Promise<void> {
    this.flush();
    await this.inFlight;
  }
}

export async function buildChain(node: RegtestNode, paymentTxs: number, progress: (line: string) => void): Promise<BenchChain> {
  const started = Date.now();
  const miner = signer('bench-miner');
  const hot = Array.from({ length: HOT_ADDRESSES }, (_, i) => signer(`bench-hot-${i}`));
  const laneKeys = Array.from({ length: LANE_KEYS }, (_, i) => signer(`bench-lane-${i}`));

  const fanouts = Math.ceil(paymentTxs / MAX_GENERATIONS / LANES_PER_FANOUT);
  const lanes = fanouts * LANES_PER_FANOUT;
  const generations = Math.ceil(paymentTxs / lanes);

  // Coinbases at heights 1..fanouts pay the miner 50 LTC each and mature 100 blocks later.
  const mined = await node.mine(fanouts + COINBASE_MATURITY, miner.address);
  const coinbases: Coin[] = [];
  for (const hash of mined.slice(0, fanouts)) {
    const block = await node.rpc.call<{ tx: Array<{ txid: string; vout: Array<{ value: number; scriptPubKey: { hex: string } }> }> }>('getblock', [hash, 2]);
    const cb = block.tx[0];
    const out = cb?.vout[0];
    if (!cb || !out || out.scriptPubKey.hex !== bytesToHex(miner.script)) throw new Error('unexpected coinbase layout on the bench chain');
    coinbases.push({ txid: cb.txid, vout: 0, value: coinsToUnits(out.value), owner: miner });
  }

  const submitter = new Submitter(node);
  const laneCoins: Coin[] = [];
  for (const cb of coinbases) {
    const each = (cb.value - FANOUT_FEE) / BigInt(LANES_PER_FANOUT);
    const owners = Array.from({ length: LANES_PER_FANOUT }, (_, k) => laneKeys[(laneCoins.length + k) % LANE_KEYS]!);
    const { hex, txid } = spend(cb, owners.map((o) => ({ value: each, script: o.script })));
    submitter.add(hex);
    owners.forEach((owner, vout) => laneCoins.push({ txid, vout, value: each, owner }));
  }
  await submitter.drain();
  await node.mine(1, miner.address);

  const hotRows = new Array<number>(HOT_ADDRESSES).fill(0);
  let made = 0;
  let sinceBlock = 0;
  let blocksWithPayments = 0;
  const mineBlock = async (): Promise<void> => {
    await submitter.drain();
    await node.mine(1, miner.address);
    blocksWithPayments++;
    sinceBlock = 0;
    progress(`  chain: ${made}/${paymentTxs} payments, ${blocksWithPayments} blocks`);
  };
  for (let g = 0; g < generations && made < paymentTxs; g++) {
    for (let lane = 0; lane < lanes && made < paymentTxs; lane++) {
      const coin = laneCoins[lane]!;
      const to = made % HOT_ADDRESSES;
      const change = coin.value - PAYMENT - PAYMENT_FEE;
      const { hex, txid } = spend(coin, [
        { value: PAYMENT, script: hot[to]!.script },
        { value: change, script: coin.owner.script },
      ]);
      submitter.add(hex);
      laneCoins[lane] = { txid, vout: 1, value: change, owner: coin.owner };
      hotRows[to]!++;
      made++;
      if (++sinceBlock >= BLOCK_TXS) await mineBlock();
    }
  }
  if (sinceBlock > 0) await mineBlock();

  const mempool = await node.rpc.call<{ size: number }>('getmempoolinfo');
  if (mempool.size !== 0) throw new Error(`${mempool.size} bench transactions were left unconfirmed`);

  const txsPerHeight = await txCounts(node.rpc);
  const tipHeight = txsPerHeight.length - 1;

  return {
    tipHeight,
    txsPerHeight,
    totalTxs: txsPerHeight.reduce((a, b) => a + b, 0),
    paymentTxs: made,
    fanoutTxs: fanouts,
    lanes,
    generations,
    blocksWithPayments,
    addresses: 1 + HOT_ADDRESSES + LANE_KEYS,
    hot: { address: hot[0]!.address, rows: hotRows[0]!, balance: BigInt(hotRows[0]!) * PAYMENT },
    emptyAddress: signer('bench-unused').address,
    buildMs: Date.now() - started,
  };
}

/** The lowest height whose cumulative transaction count reaches `share` of the chain's. */
export function heightAtShare(chain: BenchChain, share: number): { height: number; txs: number } {
  const { toHeight, txs } = heightReaching(chain.txsPerHeight, chain.totalTxs * share);
  return { height: toHeight, txs };
}

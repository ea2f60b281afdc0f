// Raw blocks (`getblock <hash> 0`, decoded by the coin codec) give the index exactly what verbose
// JSON (`getblock <hash> 2`) gives: on real litecoind -regtest blocks with every output type, spends
// of legacy and segwit outputs and coinbases, every block of the chain is compared in its encoded
// form (the bytes the row plan and the writers read) and field by field. Then an MWEB chain
// (HogEx and extension blocks), and a coin whose codec choice cannot read them, which falls back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { decodeBitcoinBlock } from '../../../shared/coins/block.ts';
import { hexToBytes } from '../../../shared/coins/bytes.ts';
import { chainParams, type ChainParams } from '../../../shared/coins/coin-table.ts';
import { CoinError } from '../../../shared/coins/errors.ts';
import { wtxidHex } from '../../../shared/coins/tx.ts';
import { encodedOf } from '../../index/blocks.ts';
import { fetchBlock, rawBlockCodec } from './block-reading.ts';
import { readRawBlock } from './raw-block.ts';
import type { ReadBlock } from './verbose-block.ts';
import { BlockParsePool } from './block-parse-pool.ts';
import { RowBuffer, streamRows } from '../../index/level-rows.ts';

const params = chainParams('litecoin', 'regtest');

const plain = (b: ReadBlock) => ({
  hash: b.hash,
  height: b.height,
  previousHash: b.previousHash,
  time: b.time,
  size: b.size,
  txs: b.txs.map((t) => ({ txid: t.txid, inputs: t.inputs, outputs: t.outputs.map((o) => ({ ...o, script: Buffer.from(o.script).toString('hex') })) })),
});

/** The LevelDB rows of a block made on this thread, as a parse thread hands them over. */
function rowsHere(block: ReadBlock): Buffer {
  const rows = new RowBuffer();
  streamRows([encodedOf(block)], rows, true);
  return Buffer.from(rows.finish());
}

/** A block's compact encoding made again from its txs' objects (a block read for the LevelDB index has none of its own). */
const reencoded = (b: ReadBlock) => Buffer.from(encodedOf({ ...b }).bytes);

/**
 * Compares every block of the node's chain read five ways (raw here; raw here and on a parse
 * thread for the LevelDB index, its rows straight from the raw bytes; raw on a parse thread for
 * the SQL stores; verbose JSON); returns the blocks read raw. The rows made from the raw bytes are
 * byte for byte those streamRows makes from the compact encoding, the path they replace.
 */
async function compareChain(node: RegtestNode, chain: ChainParams = params): Promise<ReadBlock[]> {
  const tip = await node.rpc.call<number>('getblockcount');
  const read: ReadBlock[] = [];
  const pool = new BlockParsePool(2);
  try {
    for (let height = 0; height <= tip; height++) {
      const hash = await node.rpc.call<string>('getblockhash', [height]);
      const hex = await node.rpc.call<string>('getblock', [hash, 0]);
      const raw = readRawBlock(hex, hash, height, rawBlockCodec(chain)!);
      const rawRows = readRawBlock(hex, hash, height, rawBlockCodec(chain)!, true);
      const verbose = await fetchBlock(node.rpc, chain, hash, height, 'verbose');
      const parsed = await fetchBlock(node.rpc, chain, hash, height, 'raw', { pool, levelRows: true });
      const parsedSql = await fetchBlock(node.rpc, chain, hash, height, 'raw', { pool, levelRows: false });
      const here = await fetchBlock(node.rpc, chain, hash, height, 'raw', { pool: null, levelRows: true }); // parseThreads 0
      for (const b of [raw, rawRows, parsed, parsedSql, here]) expect(plain(b)).toEqual(plain(verbose));
      expect(Buffer.from(encodedOf(raw).bytes).equals(Buffer.from(encodedOf(verbose).bytes))).toBe(true);
      expect(Buffer.from(encodedOf(parsedSql).bytes).equals(Buffer.from(encodedOf(verbose).bytes))).toBe(true);
      expect(encodedOf(parsedSql).levelRows).toBeUndefined();
      for (const b of [rawRows, parsed, here]) {
        expect(reencoded(b).equals(Buffer.from(encodedOf(verbose).bytes))).toBe(true);
        expect(Buffer.from(encodedOf(b).levelRows!).equals(rowsHere(raw)), `block ${height}'s rows`).toBe(true);
        expect(Buffer.from(encodedOf(b).levelRows!).equals(rowsHere(verbose))).toBe(true);
      }
      read.push(raw);
    }
  } finally {
    await pool.close();
  }
  return read;
}

describe('raw blocks read as verbose JSON is read', () => {
  let node: RegtestNode;
  beforeAll(async () => {
    node = await fundedNode();
  }, 120_000);
  afterAll(async () => node?.stop());

  it('every block, with every output type, legacy and segwit spends and coinbases, reads the same both ways', async () => {
    // Coins on a legacy (P2PKH) address, so a spend of a non-witness input is in the chain.
    const legacy = await node.newAddress('legacy');
    await node.mine(1, legacy);
    await node.mine(100);
    // Spend the legacy coinbase explicitly, first: a transaction with only non-witness inputs (the
    // wallet's own sends below may otherwise pick that coin and leave none to spend here).
    const unspent = await node.walletRpc.call<Array<{ txid: string; vout: number; address: string; amount: number }>>('listunspent', [1, 9999999, [legacy]]);
    const coin = unspent[0]!;
    const spend = await node.walletRpc.call<string>('createrawtransaction', [[{ txid: coin.txid, vout: coin.vout }], { [await node.newAddress('legacy')]: Number((coin.amount - 0.001).toFixed(8)) }]);
    const signed = await node.walletRpc.call<{ hex: string }>('signrawtransactionwithwallet', [spend]);
    await node.rpc.call('sendrawtransaction', [signed.hex]);
    const scripts = {
      p2sh: `a914${'11'.repeat(20)}87`,
      p2wsh: `0020${'22'.repeat(32)}`,
      p2tr: `5120${'33'.repeat(32)}`,
      p2pk: `21${'02'}${'44'.repeat(32)}ac`,
      bareMultisig: `5121${'02'}${'55'.repeat(32)}51ae`,
      opReturn: '6a0b68656c6c6f20776f726c64',
    };
    for (const hex of Object.values(scripts)) await node.fundScript(hexToBytes(hex), 1_000_000n);
    await node.walletRpc.call('sendtoaddress', [await node.newAddress('legacy'), '0.5']);
    await node.walletRpc.call('sendtoaddress', [await node.newAddress('bech32'), '0.25']);
    await node.mine(1);

    const blocks = await compareChain(node);
    const last = blocks[blocks.length - 1]!;
    expect(last.txs.length).toBeGreaterThanOrEqual(10);
    const kept = new Set(last.txs.flatMap((t) => t.outputs.map((o) => Buffer.from(o.script).toString('hex'))));
    for (const hex of [scripts.p2sh, scripts.p2wsh, scripts.p2tr]) expect(kept.has(hex)).toBe(true);
    for (const hex of [scripts.p2pk, scripts.bareMultisig, scripts.opReturn]) expect(kept.has(hex)).toBe(false); // not address-bearing: left out both ways
    expect([...kept].some((s) => s.length === 50 && s.startsWith('76a914'))).toBe(true); // P2PKH
    expect([...kept].some((s) => s.length === 44 && s.startsWith('0014'))).toBe(true); // P2WPKH

    // The codec's txids and wtxids are the node's (segwit and legacy transactions both present).
    const lastHash = last.hash;
    const json = await node.rpc.call<{ tx: Array<{ txid: string; hash: string }> }>('getblock', [lastHash, 2]);
    const decoded = decodeBitcoinBlock(hexToBytes(await node.rpc.call<string>('getblock', [lastHash, 0])), rawBlockCodec(params)!);
    expect(decoded.txs.map((t) => t.txid)).toEqual(json.tx.map((t) => t.txid));
    expect(decoded.txs.map((t) => wtxidHex(t.tx))).toEqual(json.tx.map((t) => t.hash));
    expect(json.tx.filter((t) => t.hash !== t.txid).length).toBeGreaterThan(0);
    const legacySpend = last.txs.find((t) => t.inputs.some((i) => i.txid === coin.txid && i.vout === coin.vout))!;
    expect(json.tx.find((t) => t.txid === legacySpend.txid)!.hash).toBe(legacySpend.txid); // no witness
  }, 180_000);

  it('refuses a node answer that is not a whole hex block, in words', () => {
    const codec = rawBlockCodec(params)!;
    expect(() => readRawBlock({ hex: 'ab' }, 'h', 1, codec)).toThrow(/block 1 \(h\): getblock <hash> 0 did not answer a hex string/);
    expect(() => readRawBlock('abzz', 'h', 1, codec)).toThrow(/answered text that is not hex/);
    expect(() => readRawBlock('ab'.repeat(81), 'h', 1, codec)).toThrow(CoinError);
  });
});

describe('raw blocks of an MWEB chain', () => {
  let node: RegtestNode;
  beforeAll(async () => {
    node = await startLitecoind({ mweb: true });
  }, 120_000);
  afterAll(async () => node?.stop());

  it('read the same both ways across MWEB activation (HogEx, extension blocks); a codec without MWEB falls back to verbose JSON', async () => {
    await node.mine(440);
    await node.walletRpc.call('sendtoaddress', [await node.walletRpc.call<string>('getnewaddress', ['', 'mweb']), '2']);
    await node.walletRpc.call('sendtoaddress', [await node.newAddress('bech32'), '1']);
    await node.mine(2);
    const blocks = await compareChain(node);
    const tip = blocks[blocks.length - 1]!;
    const decoded = decodeBitcoinBlock(hexToBytes(await node.rpc.call<string>('getblock', [tip.hash, 0])), rawBlockCodec(params)!);
    expect(decoded.txs[decoded.txs.length - 1]!.hogEx).toBe(true);

    // A coin table saying plain 'bitcoin' for these blocks: the codec refuses the HogEx, and the
    // block is read from verbose JSON instead, the same block.
    const noMweb: ChainParams = { ...params, rawBlocks: 'bitcoin' };
    const hex = await node.rpc.call<string>('getblock', [tip.hash, 0]);
    expect(() => readRawBlock(hex, tip.hash, tip.height, rawBlockCodec(noMweb)!)).toThrow(/unknown serialization flag 0x8/);
    // read for the LevelDB index the refusal is the codec's, in its words: the same fallback
    expect(() => readRawBlock(hex, tip.hash, tip.height, rawBlockCodec(noMweb)!, true)).toThrow(/unknown serialization flag 0x8/);
    const hereFellBack = await fetchBlock(node.rpc, noMweb, tip.hash, tip.height, 'raw', { pool: null, levelRows: true });
    expect(plain(hereFellBack)).toEqual(plain(tip));
    expect(encodedOf(hereFellBack).levelRows).toBeUndefined();
    const fellBack = await fetchBlock(node.rpc, noMweb, tip.hash, tip.height, 'raw');
    expect(plain(fellBack)).toEqual(plain(tip));
    // the same through a parse thread: the codec's refusal comes back, the block is read as verbose JSON
    const pool = new BlockParsePool(1);
    try {
      const threadFellBack = await fetchBlock(node.rpc, noMweb, tip.hash, tip.height, 'raw', { pool, levelRows: true });
      expect(plain(threadFellBack)).toEqual(plain(tip));
      expect(encodedOf(threadFellBack).levelRows).toBeUndefined(); // its rows are made by the writer
      // a node answer that is not hex is refused in words, from the thread as here
      await expect(pool.parse('abzz', 'h', 1, rawBlockCodec(params)!, true)).rejects.toThrow(/answered text that is not hex/);
    } finally {
      await pool.close();
    }
  }, 240_000);
});

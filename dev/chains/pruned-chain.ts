// A pruned litecoind -regtest node for tests, built fast. Core frees only whole block files (up to
// 128 MiB each) and keeps the last 288 blocks, and Litecoin Core 0.21 has no -fastprune: so the
// first file is filled with blocks that each hold one ~0.96 MB nonstandard transaction (a large
// OP_RETURN, accepted with -acceptnonstdtxn=1), about 140 of them. -prune=1 is manual pruning:
// nothing is freed until pruneblockchain is called. -txindex is refused with -prune, so it is off.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { crypto, opcodes, script as bscript, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hexToBytes, sha256 } from '../../shared/coins/index.ts';
import { fundedNode, type RegtestNode, type StartLitecoindOptions } from './litecoind.ts';

export const PRUNED_NODE_ARGS = ['-txindex=0', '-prune=1', '-acceptnonstdtxn=1'];
/** Blocks Core keeps whatever pruneblockchain asks (MIN_BLOCKS_TO_KEEP). */
export const KEPT_BLOCKS = 288;
// Under the 1 MB block limit (4,000,000 weight units, 4 per non-witness byte) with room for the
// coinbase and the transaction's input and change.
const FILLER_BYTES = 960_000;
const MAX_FILLER_BLOCKS = 400;
const FILLER_FEE = 20_000_000n; // 0.2 coins: well above the relay minimum for ~1 MB
const FILLER_FUNDS = 45_00000000n;

/** A node started with -prune=1 (and 101 blocks mined to its wallet). */
export function prunableNode(options: StartLitecoindOptions = {}): Promise<RegtestNode> {
  return fundedNode({ ...options, extraArgs: [...PRUNED_NODE_ARGS, ...(options.extraArgs ?? [])] });
}

async function blockFiles(node: RegtestNode): Promise<string[]> {
  return (await readdir(join(node.datadir, 'regtest', 'blocks'))).filter((f) => /^blk\d{5}\.dat$/.test(f)).sort();
}

/**
 * Mines blocks of one large transaction each until the node opens its next block file; returns the
 * number mined. Every block mined before this call then lies in a file that pruneblockchain can free
 * once 288 more blocks are on top.
 */
export async function fillBlockFile(node: RegtestNode): Promise<number> {
  const before = (await blockFiles(node)).length;
  const minedTo = await node.newAddress();
  // The wallet refuses to build a transaction this large ("Transaction too large"), and passing a
  // megabyte of hex through createrawtransaction and signrawtransactionwithwallet took about 2 s a
  // block on a loaded machine: each one is built and signed here (P2PKH of a test key) and only
  // sent, spending the last one's change.
  const key = sha256(new TextEncoder().encode('countersign filler key'));
  const pubkey = ecc.pointFromScalar(key, true)!;
  const spk = bscript.compile([opcodes.OP_DUP, opcodes.OP_HASH160, crypto.hash160(pubkey), opcodes.OP_EQUALVERIFY, opcodes.OP_CHECKSIG]);
  const fundTxid = await node.fundScript(spk, FILLER_FUNDS);
  const fundTx = await node.rpc.call<{ vout: { n: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [fundTxid, true]);
  const fundVout = fundTx.vout.find((o) => o.scriptPubKey.hex === bytesToHex(spk))!.n;
  await node.mine(1);
  let coin = { txid: fundTxid, vout: fundVout, units: FILLER_FUNDS };
  const opReturn = new Uint8Array(6 + FILLER_BYTES).fill(0xab);
  opReturn.set([opcodes.OP_RETURN, opcodes.OP_PUSHDATA4, FILLER_BYTES & 0xff, (FILLER_BYTES >> 8) & 0xff, (FILLER_BYTES >> 16) & 0xff, FILLER_BYTES >>> 24]);
  for (let n = 1; n <= MAX_FILLER_BLOCKS; n++) {
    const units = coin.units - FILLER_FEE;
    if (units < FILLER_FEE) throw new Error('the filler blocks ran out of coins');
    const tx = new Transaction();
    tx.addInput(hexToBytes(coin.txid).reverse(), coin.vout);
    tx.addOutput(opReturn, 0n);
    tx.addOutput(spk, units);
    const hash = tx.hashForSignature(0, spk, Transaction.SIGHASH_ALL);
    tx.setInputScript(0, bscript.compile([bscript.signature.encode(ecc.sign(hash, key), Transaction.SIGHASH_ALL), pubkey]));
    const txid = await node.rpc.call<string>('sendrawtransaction', [tx.toHex(), 0]);
    coin = { txid, vout: 1, units };
    await node.rpc.call('generatetoaddress', [1, minedTo]);
    if ((await blockFiles(node)).length > before) return n;
  }
  throw new Error(`no new block file after ${MAX_FILLER_BLOCKS} blocks of ${FILLER_BYTES} bytes`);
}

/**
 * Prunes all it can (pruneblockchain at the tip) and answers the node's pruneheight. Regtest
 * refuses below a tip of 1,000 blocks ("Blockchain is too short for pruning", its PruneAfterHeight).
 */
export async function pruneAll(node: RegtestNode): Promise<number> {
  const tip = await node.rpc.call<number>('getblockcount');
  await node.rpc.call('pruneblockchain', [tip]);
  const info = await node.rpc.call<{ pruned: boolean; pruneheight?: number }>('getblockchaininfo');
  if (!info.pruned || info.pruneheight === undefined) throw new Error('the node did not report itself pruned');
  return info.pruneheight;
}

// The LevelDB rows read straight from a raw block (level-raw-rows.ts) are byte for byte the rows
// the path they replace makes (the codec's decode, the compact encoding, streamRows): on real
// testnet3 blocks (BIP158's vectors: segwit, non-standard scripts), on hand-made blocks with the
// edge cases (0xfd-size varints, an empty witness beside a full one, non-standard and empty
// scripts, vout gaps of 31 and more, amounts from 2^52, a tx without inputs, Dash payloads), and on
// every truncation and thousands of random byte changes of them, where both refuse in the same
// words. raw-block.regtest.test.ts does the same over every block of real regtest chains.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BlockCodecChoice } from '../../shared/coins/block.ts';
import { concatBytes, encodeCompactSize, hexToBytes } from '../../shared/coins/bytes.ts';
import { encodeTx, type BitcoinTx } from '../../shared/coins/tx.ts';
import { decodeBitcoinBlock } from '../../shared/coins/block.ts';
import { encodeRawBlockBytes } from '../chains/utxo/raw-block.ts';
import { RawRowReader } from './level-raw-rows.ts';
import { RowBuffer, streamRows, type Writes } from './level-rows.ts';
import { putRows } from './level-put-rows.ts';

const SEGWIT: BlockCodecChoice = { segwit: true, rawBlocks: 'bitcoin' };
const MWEB: BlockCodecChoice = { segwit: true, rawBlocks: 'bitcoin-mweb' };
const LEGACY: BlockCodecChoice = { segwit: false, rawBlocks: 'bitcoin' };
const DASH: BlockCodecChoice = { segwit: false, rawBlocks: 'bitcoin', specialTx: 'dash-dip2' };

const reader = new RawRowReader();

/** What a path gives for a block: its rows (hex), or its error's class and words. */
type Outcome = { rows: string } | { error: string };

function outcome(make: () => Uint8Array): Outcome {
  try {
    return { rows: Buffer.from(make()).toString('hex') };
  } catch (err) {
    return { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

/** The path replaced: the codec, the compact encoding, streamRows. */
const before = (raw: Uint8Array, height: number, chain: BlockCodecChoice) =>
  outcome(() => {
    const parts = encodeRawBlockBytes(raw, 'h', height, chain);
    const rows = new RowBuffer();
    streamRows([{ height, hash: 'h', time: parts.time, bytes: parts.bytes }], rows, true);
    return rows.finish();
  });
const after = (raw: Uint8Array, height: number, chain: BlockCodecChoice) => outcome(() => reader.read(raw, height, chain).rows);

function same(raw: Uint8Array, height: number, chain: BlockCodecChoice): Outcome {
  const old = before(raw, height, chain);
  expect(after(raw, height, chain)).toEqual(old);
  if ('rows' in old) {
    // and what else the block gives: its txids, header fields, where each tx starts
    const decoded = decodeBitcoinBlock(raw, chain);
    const read = reader.read(raw, height, chain);
    const txids = Array.from({ length: decoded.txs.length }, (_, i) => Buffer.from(read.txids.subarray(32 * i, 32 * i + 32)).toString('hex'));
    expect(txids).toEqual(decoded.txs.map((t) => t.txid));
    expect(read.previousHash).toBe(/^0+$/.test(decoded.header.previousHash) ? null : decoded.header.previousHash);
    expect(read.time).toBe(decoded.header.time);
    expect(read.offsets.length).toBe(decoded.txs.length);
  }
  return old;
}

const pkh = (n: number) => Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(n), 0x88, 0xac]);
const wpkh = (n: number) => Uint8Array.from([0x00, 0x14, ...new Array<number>(20).fill(n)]);
const wsh = (n: number) => Uint8Array.from([0x00, 0x20, ...new Array<number>(32).fill(n)]);
const tr = (n: number) => Uint8Array.from([0x51, 0x20, ...new Array<number>(32).fill(n)]);
const sh = (n: number) => Uint8Array.from([0xa9, 0x14, ...new Array<number>(20).fill(n), 0x87]);
const opReturn = Uint8Array.from([0x6a, 0x04, 1, 2, 3, 4]);
const p2pk = Uint8Array.from([0x21, 0x02, ...new Array<number>(32).fill(9), 0xac]);
const bareMultisig = Uint8Array.from([0x51, 0x21, 0x02, ...new Array<number>(32).fill(7), 0x51, 0xae]);
const prev = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (n * 31 + i) & 0xff);

const coinbaseTx = (n: number, outputs: BitcoinTx['outputs']): BitcoinTx => ({
  version: 1,
  inputs: [{ prevTxid: new Uint8Array(32), vout: 0xffffffff, scriptSig: Uint8Array.from([3, n, 0, 0]), sequence: 0xffffffff }],
  outputs,
  locktime: 0,
});

function block(txs: readonly BitcoinTx[], previous = prev(200)): Uint8Array {
  const header = new Uint8Array(80);
  const view = new DataView(header.buffer);
  view.setInt32(0, 0x20000000, true);
  header.set(previous, 4);
  view.setUint32(68, 1_700_000_000, true);
  view.setUint32(72, 0x207fffff, true);
  return concatBytes(header, encodeCompactSize(txs.length), ...txs.map((t) => encodeTx(t)));
}

/** A block with every edge case of a Bitcoin-format block the index meets. */
function edgeBlock(): Uint8Array {
  const many: BitcoinTx['outputs'] = [];
  for (let i = 0; i < 300; i++) many.push({ value: BigInt(i), script: i % 7 === 0 ? pkh(i & 0xff) : i % 5 === 0 ? new Uint8Array(0) : opReturn });
  return block([
    coinbaseTx(1, [
      { value: 5_000_000_000n, script: wpkh(1) },
      { value: 0n, script: opReturn },
    ]),
    // 0xfd-size varints: 300 outputs (vouts from 128 take 2 bytes in keys), a 300-byte scriptSig
    {
      version: 2,
      inputs: [{ prevTxid: prev(1), vout: 3, scriptSig: new Uint8Array(300).fill(0x51), sequence: 0xfffffffe }],
      outputs: many,
      locktime: 17,
    },
    // segwit: an empty witness beside a full one, a 300-byte witness item, a spend of vout 2^32 - 2
    {
      version: 2,
      inputs: [
        { prevTxid: prev(2), vout: 0, scriptSig: new Uint8Array(0), sequence: 0, witness: [] },
        { prevTxid: prev(2), vout: 1, scriptSig: new Uint8Array(0), sequence: 0, witness: [new Uint8Array(300).fill(1), new Uint8Array(0)] },
        { prevTxid: prev(3), vout: 0xfffffffe, scriptSig: new Uint8Array(0), sequence: 0, witness: [Uint8Array.of(2)] },
      ],
      outputs: [
        { value: 2n ** 52n - 1n, script: sh(4) },
        { value: 2n ** 52n, script: wsh(5) },
        { value: 2n ** 62n, script: tr(6) },
        { value: 1n, script: p2pk },
        { value: 1n, script: bareMultisig },
      ],
      locktime: 0,
    },
    // non-standard scripts only: no F row, its txid in the block's T row alone
    { version: 1, inputs: [{ prevTxid: prev(4), vout: 0, scriptSig: new Uint8Array(0), sequence: 0 }], outputs: [{ value: 10n, script: opReturn }, { value: 10n, script: new Uint8Array(0) }], locktime: 0 },
    // a vout gap of 40 before the one output kept, then one of 0
    {
      version: 1,
      inputs: [{ prevTxid: prev(5), vout: 7, scriptSig: Uint8Array.of(0), sequence: 0 }],
      outputs: [...Array.from({ length: 40 }, () => ({ value: 1n, script: opReturn })), { value: 3n, script: pkh(8) }, { value: 4n, script: wpkh(8) }],
      locktime: 0,
    },
  ]);
}

/** A Dash block: a special transaction (version 3, type 5) with its payload after the locktime. */
function dashBlock(): Uint8Array {
  const special = concatBytes(encodeTx({ version: 3 | (5 << 16), inputs: [{ prevTxid: prev(9), vout: 1, scriptSig: Uint8Array.of(0), sequence: 0 }], outputs: [{ value: 9n, script: pkh(9) }], locktime: 0 }), encodeCompactSize(3), Uint8Array.of(1, 2, 3));
  const header = block([coinbaseTx(2, [{ value: 1n, script: pkh(1) }])]);
  return concatBytes(header.subarray(0, 80), encodeCompactSize(2), header.subarray(81), special);
}

function vectorBlocks(): { height: number; raw: Uint8Array }[] {
  const vectors = JSON.parse(readFileSync(new URL('../../shared/coins/fixtures/vectors/bip158-blockfilters.json', import.meta.url), 'utf8')) as unknown[][];
  return vectors.filter((r) => r.length > 1).map((r) => ({ height: r[0] as number, raw: hexToBytes(r[2] as string) }));
}

/** A small deterministic generator (the changes are the same every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('LevelDB rows read straight from raw blocks', () => {
  it('are the rows of the path they replace on real testnet3 blocks (segwit, non-standard scripts)', () => {
    const blocks = vectorBlocks();
    expect(blocks.length).toBeGreaterThan(5);
    let rows = 0;
    for (const { height, raw } of blocks) {
      const got = same(raw, height, SEGWIT);
      expect('rows' in got, `block ${height}`).toBe(true);
      rows += 'rows' in got ? got.rows.length : 0;
    }
    expect(rows).toBeGreaterThan(1000);
  });

  it('are the same on the edge cases, on Dash payloads and on a tx without inputs (a chain without segwit)', () => {
    const edge = edgeBlock();
    expect('rows' in same(edge, 7, SEGWIT)).toBe(true);
    expect('rows' in same(edge, 7, MWEB)).toBe(true);
    expect('rows' in same(edge, 2 ** 20, SEGWIT)).toBe(true); // tx numbers beyond 32 bits
    expect('rows' in same(dashBlock(), 5, DASH)).toBe(true);
    const noInputs = block([coinbaseTx(3, [{ value: 1n, script: pkh(3) }]), { version: 1, inputs: [], outputs: [{ value: 2n, script: pkh(4) }], locktime: 0 }]);
    expect('rows' in same(noInputs, 9, LEGACY)).toBe(true); // its output's F row carries the coinbase flag both ways
    expect(reader.read(noInputs, 9, LEGACY).previousHash).toBe(Buffer.from(prev(200)).reverse().toString('hex'));
    expect(reader.read(block([coinbaseTx(4, [{ value: 1n, script: pkh(4) }])], new Uint8Array(32)), 0, SEGWIT).previousHash).toBeNull();
  });

  it('are the same on blocks of 63, 64, 65, 128 and 130 txs (T rows: groups of 64 txids)', () => {
    const spendOf = (n: number): BitcoinTx => ({ version: 1, inputs: [{ prevTxid: prev(n), vout: n, scriptSig: Uint8Array.of(0), sequence: 0 }], outputs: [{ value: BigInt(n), script: pkh(n & 0xff) }], locktime: n });
    for (const count of [63, 64, 65, 128, 130]) {
      const raw = block([coinbaseTx(count, [{ value: 1n, script: wpkh(1) }]), ...Array.from({ length: count - 1 }, (_, i) => spendOf(i + 1))]);
      const got = same(raw, 2 ** 20 + 3, SEGWIT);
      expect('rows' in got, `${count} txs`).toBe(true);
      // one T row a group: its key tag, 6-byte group, then its value's length
      const tRows = 'rows' in got ? got.rows.match(/0754[0-9a-f]{12}[0-9a-f]{8}/g) : null;
      expect(tRows?.map((r) => Buffer.from(r.slice(16), 'hex').readUInt32LE(0))).toEqual(Array.from({ length: Math.ceil(count / 64) }, (_, g) => 32 * Math.min(64, count - 64 * g)));
    }
  });

  it('refuse what the codec refuses, in its words: every truncation and random byte changes', () => {
    const blocks = [
      { raw: edgeBlock(), chain: SEGWIT },
      { raw: dashBlock(), chain: DASH },
      ...vectorBlocks()
        .filter((b) => b.raw.length < 20_000)
        .slice(0, 3)
        .map((b) => ({ raw: b.raw, chain: SEGWIT })),
    ];
    let refused = 0;
    let read = 0;
    for (const { raw, chain } of blocks) {
      for (let end = 0; end < raw.length; end += end < 200 ? 1 : 37) {
        const cut = same(raw.subarray(0, end), 3, chain);
        expect('error' in cut, `cut at ${end}`).toBe(true);
        refused++;
      }
      const next = random(raw.length);
      for (let n = 0; n < 400; n++) {
        const changed = Uint8Array.from(raw);
        for (let k = 1 + Math.floor(next() * 3); k > 0; k--) changed[Math.floor(next() * changed.length)] = Math.floor(next() * 256);
        if ('error' in same(changed, 3, chain)) refused++;
        else read++;
      }
      expect('error' in same(concatBytes(raw, Uint8Array.of(0)), 3, chain)).toBe(true); // a trailing byte
    }
    expect(refused).toBeGreaterThan(100);
    expect(read).toBeGreaterThan(100);
  });

  it('refuse an output spent twice in a block, and across the blocks of a batch, in the words of today', () => {
    const spend = (n: number, of: Uint8Array, vout: number): BitcoinTx => ({ version: 1, inputs: [{ prevTxid: of, vout, scriptSig: Uint8Array.of(n), sequence: 0 }], outputs: [{ value: 1n, script: pkh(n) }], locktime: 0 });
    const twice = block([coinbaseTx(5, [{ value: 1n, script: pkh(5) }]), spend(1, prev(7), 2), spend(2, prev(8), 2), spend(3, prev(7), 2)]);
    const old = before(twice, 12, SEGWIT);
    expect(old).toEqual({ error: `Error: ${Buffer.from(prev(7)).toString('hex')}:2 is spent twice, in blocks 12 and 12` });
    expect(after(twice, 12, SEGWIT)).toEqual(old);

    // across blocks: putRows (the writer) names it from the raw blocks
    const first = block([coinbaseTx(6, [{ value: 1n, script: pkh(6) }]), spend(1, prev(7), 2)]);
    const second = block([coinbaseTx(7, [{ value: 1n, script: pkh(7) }]), spend(2, prev(8), 0), spend(3, prev(7), 2)]);
    const batch = [
      { raw: first, height: 20 },
      { raw: second, height: 21 },
    ].map(({ raw, height }) => ({ height, hash: `h${height}`, time: 0, bytes: new Uint8Array(0), levelRows: reader.read(raw, height, SEGWIT).rows, raw: { bytes: raw, chain: SEGWIT } }));
    const ignore: Writes = { put: () => undefined, del: () => undefined };
    expect(() => putRows(batch, ignore)).toThrow(`${Buffer.from(prev(7)).toString('hex')}:2 is spent twice, in blocks 20 and 21`);
    // the same batch without the double spend goes in whole, row for row as each block's own
    const fine = [batch[0]!, { ...batch[1]!, levelRows: reader.read(block([coinbaseTx(7, [{ value: 1n, script: pkh(7) }]), spend(2, prev(8), 0)]), 21, SEGWIT).rows }];
    const put: string[] = [];
    putRows(fine, { put: (k, v) => put.push(k.toString('hex') + v.toString('hex')), del: () => undefined });
    expect(put.length).toBe(2 * (2 + 3 + 1)); // each block: K, F of its coinbase; K, S, F of its spend; one T row of both txids
  });
});

import { describe, expect, it } from 'vitest';
import { classifyOutputScript } from '../../../shared/coins/script.ts';
import { encodedOf } from '../../index/blocks.ts';
import { planRows, spentLookup } from '../../index/row-plan.ts';
import { txNumOf } from '../../index/txnum.ts';
import { readVerboseBlock, readVerboseTx } from './verbose-block.ts';
import { isStandardScript } from '../../index/blocks.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('verbose block reader', () => {
  it('keeps exactly the outputs classifyOutputScript calls standard', () => {
    const shapes = [
      [0x76, 0xa9, 0x14, ...Array<number>(20).fill(1), 0x88, 0xac],
      [0xa9, 0x14, ...Array<number>(20).fill(2), 0x87],
      [0x00, 0x14, ...Array<number>(20).fill(3)],
      [0x00, 0x20, ...Array<number>(32).fill(4)],
      [0x51, 0x20, ...Array<number>(32).fill(5)],
    ];
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const samples: Uint8Array[] = [Uint8Array.of(), Uint8Array.of(0x6a, 0x01, 0x00)];
    for (const shape of shapes) {
      samples.push(Uint8Array.from(shape));
      for (let i = 0; i < 200; i++) {
        const s = Uint8Array.from(shape);
        s[rand(s.length)] = rand(256); // one byte changed, often a structural one
        samples.push(rand(4) === 0 ? s.subarray(0, rand(s.length)) : s);
      }
    }
    for (const s of samples) {
      const framed = Uint8Array.from([9, 9, ...s, 9]);
      expect(isStandardScript(framed, 2, s.length), hex(s)).toBe(classifyOutputScript(s).type !== 'other');
    }
  });

  it('reads txs as plain IndexedTx values, odd txids and large amounts included', () => {
    const spk = (h: string) => ({ hex: h });
    const p2pkh = `76a914${'ab'.repeat(20)}88ac`;
    const json = {
      hash: 'ff'.repeat(32),
      height: 5,
      previousblockhash: 'ee'.repeat(32),
      time: 1_700_000_000,
      tx: [
        { txid: 'aa'.repeat(32), vin: [{ coinbase: '00' }], vout: [{ n: 0, value: 50, scriptPubKey: spk(p2pkh) }, { n: 1, value: 0, scriptPubKey: spk('6a00') }] },
        {
          txid: 'NOT-HEX',
          vin: [
            { txid: 'aa'.repeat(32), vout: 0 },
            { txid: 'ABCD', vout: 3 },
          ],
          vout: [{ n: 2, value: '92233720368.54775808', scriptPubKey: spk(p2pkh.toUpperCase()) }],
        },
      ],
    };
    const block = readVerboseBlock(json, 8);
    expect(block.previousHash).toBe('ee'.repeat(32));
    expect(block.txs.map((t) => ({ txid: t.txid, inputs: t.inputs, outputs: t.outputs.map((o) => ({ ...o, script: hex(o.script) })) }))).toEqual([
      { txid: 'aa'.repeat(32), inputs: [], outputs: [{ vout: 0, script: p2pkh, amount: 5_000_000_000n }] },
      {
        txid: 'NOT-HEX',
        inputs: [
          { txid: 'aa'.repeat(32), vout: 0 },
          { txid: 'ABCD', vout: 3 },
        ],
        outputs: [{ vout: 2, script: p2pkh, amount: 2n ** 63n }],
      },
    ]);
    const encoded = [encodedOf(block)];
    const rows = planRows(encoded, spentLookup(encoded), new Map());
    // the block's second tx spends the first's output: marked on that output's row
    expect(rows.spends).toHaveLength(0);
    expect(rows.outputs.map((o) => o.spentTxnum)).toEqual([txNumOf(block.height, 1), null]);
    expect(readVerboseTx(json.tx[0], 8).outputs).toHaveLength(1);
    expect(() => readVerboseTx({ ...json.tx[0], vout: [{ n: 0, value: 1, scriptPubKey: spk('abc') }] }, 8)).toThrow('a scriptPubKey is not hex');
  });
});

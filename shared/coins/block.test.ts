// Whole blocks read by the codec: real testnet3 blocks (BIP158's published vectors, the genesis and
// a segwit block among them) give back their published hash and, from the txids the codec hashed,
// their header's merkle root: an independent check of every txid. Then the refusals, and
// Litecoin's MWEB HogEx, accepted only where the coin table says so.
import { describe, expect, it } from 'vitest';
import { decodeBitcoinBlock, type BlockCodecChoice } from './block.ts';
import { bytesToHex, concatBytes, hexToBytes, reverseBytes } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { loadJson } from './fixtures/load-json.ts';
import { sha256d } from './hash.ts';
import { decodeTx, encodeTx, txidHex, wtxidHex } from './tx.ts';

type Row = [number, string, string, string[], string, string, string, string];
const rows = ((await loadJson(new URL('./fixtures/vectors/bip158-blockfilters.json', import.meta.url))) as unknown[][]).filter((r) => r.length > 1) as Row[];

const BITCOIN: BlockCodecChoice = { segwit: true, rawBlocks: 'bitcoin' };
const LITECOIN: BlockCodecChoice = { segwit: true, rawBlocks: 'bitcoin-mweb' };

function merkleRoot(txids: string[]): string {
  let level = txids.map((t) => reverseBytes(hexToBytes(t)));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(concatBytes(level[i]!, level[i + 1] ?? level[i]!)));
    level = next;
  }
  return bytesToHex(reverseBytes(level[0]!));
}

// A HogEx as Litecoin Core 0.21.2 serialized it on regtest (flag 0x08, no MWEB transaction, one
// peg-in output); its txid as the node reported it.
const HOGEX =
  '0200000000080144bd287064576d18029bdf924d77580ce1567d5faafbe77a054f38afac6679d90000000000ffffffff016e48814a00000000225820f0bc2d0fd82af36fd9e786b4cee6aa0fd439dbfbc19edb1e96f95a960e3468150000000000';
const HOGEX_TXID = 'e8534b9de0c641c571248578b2fc2a6a8bed4e7a78887456d055d6b4786161be';

describe('decodeBitcoinBlock', () => {
  it.each(rows.map((r) => [r[0], r[7] || 'plain', r] as const))('reads testnet block %i (%s): its hash, and txids that give its merkle root', (_height, _note, row) => {
    const [, hash, hex] = row;
    const bytes = hexToBytes(hex);
    const block = decodeBitcoinBlock(bytes, BITCOIN);
    expect(bytesToHex(reverseBytes(sha256d(bytes.subarray(0, 80))))).toBe(hash);
    expect(merkleRoot(block.txs.map((t) => t.txid))).toBe(block.header.merkleRoot);
    for (const t of block.txs) {
      expect(t.txid).toBe(txidHex(t.tx)); // hashed in place = hashed from the re-encoding
      expect(t.hogEx).toBe(false);
    }
    expect(block.header.previousHash).toMatch(_height === 0 ? /^0{64}$/ : /^(?!0{64})[0-9a-f]{64}$/);
    const next = rows.find((r) => r[0] === _height + 1);
    if (next) expect(decodeBitcoinBlock(hexToBytes(next[2]), BITCOIN).header.previousHash).toBe(hash);
  });

  it('reads the segwit block\'s witnesses: the wtxids differ from the txids where witness data is', () => {
    const row = rows.find((r) => r[7] === 'Includes witness data')!;
    const block = decodeBitcoinBlock(hexToBytes(row[2]), BITCOIN);
    const witnessed = block.txs.filter((t) => t.tx.inputs.some((i) => (i.witness?.length ?? 0) > 0));
    expect(witnessed.length).toBeGreaterThan(0);
    for (const t of witnessed) expect(wtxidHex(t.tx)).not.toBe(t.txid);
  });

  it('refuses a truncated block, trailing bytes and a block without transactions, in words', () => {
    const hex = rows[0]![2];
    expect(() => decodeBitcoinBlock(hexToBytes(hex.slice(0, -2)), BITCOIN)).toThrow(/block is truncated/);
    expect(() => decodeBitcoinBlock(hexToBytes(`${hex}00`), BITCOIN)).toThrow(/1 unexpected trailing byte/);
    expect(() => decodeBitcoinBlock(hexToBytes(`${hex.slice(0, 160)}00`), BITCOIN)).toThrow(/no transactions/);
    expect(() => decodeBitcoinBlock(hexToBytes(hex.slice(0, 100)), BITCOIN)).toThrow(/shorter than its 80-byte header/);
  });

  it('reads Litecoin\'s HogEx and skips the MWEB extension block after it, only for a bitcoin-mweb coin', () => {
    const genesis = hexToBytes(rows[0]![2]);
    const coinbase = genesis.subarray(81); // the genesis block's one transaction
    const extension = hexToBytes('01deadbeef'); // stands for the extension block: never read
    const block = concatBytes(genesis.subarray(0, 80), Uint8Array.of(2), coinbase, hexToBytes(HOGEX), extension);
    const read = decodeBitcoinBlock(block, LITECOIN);
    expect(read.txs.map((t) => t.txid)).toEqual([txidHex(decodeTx(coinbase)), HOGEX_TXID]);
    expect(read.txs.map((t) => t.hogEx)).toEqual([false, true]);
    expect(bytesToHex(read.txs[1]!.tx.outputs[0]!.script)).toBe('5820f0bc2d0fd82af36fd9e786b4cee6aa0fd439dbfbc19edb1e96f95a960e346815');
    expect(() => decodeBitcoinBlock(block, BITCOIN)).toThrow(/unknown serialization flag 0x8/);
    // without the HogEx last, the bytes after the transactions are not an extension block
    const noHogEx = concatBytes(genesis.subarray(0, 80), Uint8Array.of(1), coinbase, extension);
    expect(() => decodeBitcoinBlock(noHogEx, LITECOIN)).toThrow(/5 unexpected trailing byte/);
    // an MWEB transaction among the block's own is refused, not misread
    const withMwebTx = hexToBytes(HOGEX.replace(/00(00000000)$/, '01$1'));
    expect(() => decodeBitcoinBlock(concatBytes(genesis.subarray(0, 80), Uint8Array.of(2), coinbase, withMwebTx), LITECOIN)).toThrow(/MWEB transaction, which this codec does not read/);
  });

  it('reads a Dash block\'s special transactions with their payloads (the txid covers them)', () => {
    const dash = chainParams('dash', 'testnet');
    // The ProUpServTx of tx-dash.test.ts after the genesis coinbase, under the genesis header.
    const special = hexToBytes(
      '0300020001f88750ccc24410679d87ee63df5c8dfd901329aa1fe60a74c183d560eee5218d010000006a473044022029090e49ba2e387e7b39df51fdd6ec1becdd568cdd0de79f5dca6084bee677380220583bb62418aa986d927b4487d6a7f0469c4bc54a0e7baa0c484e8c140c37b3d301210345184cc81d6cd98eef548206f23a1467c27fea65582d519daa0f7a88a6c45666feffffff01e7edd23b000000001976a9147f95c0f808aff27883260bfaf9cfe2b84519a6b288ac00000000b702000000ff92ce2d64657cc3d4d9d82547efca2206ec1d9f5dcf2776624bc0a58b12ed3b00000000000000000000ffffae22e9734e1f0026ad5ada35511fc5b9d762b14b22510325ef8b82d21d59567f8e1c3c9e0c955ab99a62829e6317b1943d97f66191b1c6714146540788e2d26a1007498dce455603f55aebacf1a38131048abf7d5a05d00e9e93c1e91cc8cad239b4301b328f5fe1bcbae829ccd6a3f461e712873a188224829fc4b5fc01fa0fb29014b947d8f7',
    );
    const genesis = hexToBytes(rows[0]![2]);
    const block = concatBytes(genesis.subarray(0, 80), Uint8Array.of(2), genesis.subarray(81), special);
    const read = decodeBitcoinBlock(block, { segwit: dash.segwit, rawBlocks: 'bitcoin', specialTx: dash.specialTx! });
    expect(read.txs[1]!.txid).toBe('f1d23a149955d48ef7bf81ce0a58d4f47ae28399ed3e4ef3c1f90a55a6a9e082');
    expect(bytesToHex(encodeTx(read.txs[1]!.tx))).toBe(bytesToHex(special));
  });

  it('the coin table reads raw blocks where the codec reads them whole, verbose JSON elsewhere', () => {
    const choice = (coin: Parameters<typeof chainParams>[0]) => chainParams(coin, 'mainnet').rawBlocks ?? null;
    expect(choice('bitcoin')).toBe('bitcoin');
    expect(choice('testnet3')).toBe('bitcoin');
    expect(choice('litecoin')).toBe('bitcoin-mweb');
    expect(choice('dash')).toBe('bitcoin');
    for (const coin of ['bitcoin_cash', 'bitcoin_gold', 'bitcoin_private', 'zcash', 'zclassic'] as const) expect(choice(coin)).toBeNull();
  });
});

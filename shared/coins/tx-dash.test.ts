// Dash special transactions (DIP2): version 3 with a type in the high 16 bits and a payload after
// the locktime, which the txid covers. Masternode and mining payouts arrive in them, so spending
// those coins needs their outputs read. The vector is a ProUpServTx (type 2) from Dash's own
// documentation (docs/core/reference/transactions-special-transactions.md), txid as Dash Core
// reports it.
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { decodeTx, encodeTx, txidHex, type BitcoinTx } from './tx.ts';

const PRO_UP_SERV_TX =
  '0300020001f88750ccc24410679d87ee63df5c8dfd901329aa1fe60a74c183d560eee5218d010000006a473044022029090e49ba2e387e7b39df51fdd6ec1becdd568cdd0de79f5dca6084bee677380220583bb62418aa986d927b4487d6a7f0469c4bc54a0e7baa0c484e8c140c37b3d301210345184cc81d6cd98eef548206f23a1467c27fea65582d519daa0f7a88a6c45666feffffff01e7edd23b000000001976a9147f95c0f808aff27883260bfaf9cfe2b84519a6b288ac00000000b702000000ff92ce2d64657cc3d4d9d82547efca2206ec1d9f5dcf2776624bc0a58b12ed3b00000000000000000000ffffae22e9734e1f0026ad5ada35511fc5b9d762b14b22510325ef8b82d21d59567f8e1c3c9e0c955ab99a62829e6317b1943d97f66191b1c6714146540788e2d26a1007498dce455603f55aebacf1a38131048abf7d5a05d00e9e93c1e91cc8cad239b4301b328f5fe1bcbae829ccd6a3f461e712873a188224829fc4b5fc01fa0fb29014b947d8f7';
const TXID = 'f1d23a149955d48ef7bf81ce0a58d4f47ae28399ed3e4ef3c1f90a55a6a9e082';
const dash = chainParams('dash', 'testnet');

describe('Dash special transactions (DIP2)', () => {
  it('decodes a ProUpServTx with its payload, and its txid is the one Dash Core reports', () => {
    const tx = decodeTx(hexToBytes(PRO_UP_SERV_TX), dash) as BitcoinTx;
    expect(tx.version & 0xffff).toBe(3);
    expect(tx.version >>> 16).toBe(2);
    expect(tx.outputs).toHaveLength(1);
    expect(tx.outputs[0]!.value).toBe(1_003_679_207n);
    expect(bytesToHex(tx.outputs[0]!.script)).toBe('76a9147f95c0f808aff27883260bfaf9cfe2b84519a6b288ac');
    expect(tx.extraPayload).toHaveLength(183);
    expect(txidHex(tx)).toBe(TXID);
    expect(bytesToHex(encodeTx(tx))).toBe(PRO_UP_SERV_TX);
  });

  it('is refused as a Bitcoin transaction, and with a payload cut short', () => {
    expect(() => decodeTx(hexToBytes(PRO_UP_SERV_TX))).toThrow(/184 unexpected trailing byte\(s\)/);
    expect(() => decodeTx(hexToBytes(PRO_UP_SERV_TX.slice(0, -2)), dash)).toThrow(/transaction is truncated: needed 183/);
    expect(() => decodeTx(hexToBytes(`${PRO_UP_SERV_TX}00`), dash)).toThrow(/1 unexpected trailing byte/);
  });

  it('leaves classical Dash transactions (type 0) without a payload', () => {
    const classical = `03000000${PRO_UP_SERV_TX.slice(8, PRO_UP_SERV_TX.indexOf('00000000b702') + 8)}`;
    const tx = decodeTx(hexToBytes(classical), dash) as BitcoinTx;
    expect(tx.extraPayload).toBeUndefined();
    expect(bytesToHex(encodeTx(tx))).toBe(classical);
  });
});

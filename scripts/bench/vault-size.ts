// The same 2-of-3 vault payment (1 input, 2 outputs: the recipient and change back to the vault),
// built and signed in each script type, so the bench prints what a treasurer pays per type at one
// fee rate. Real signed transactions measured by their weight, not the fee estimate.
import { addressToScript } from '../../shared/coins/address.ts';
import { assembleMultisigSpend, multisigInputHash, type MultisigInputSpend } from '../../shared/coins/assemble-multisig.ts';
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import { multisigScripts, MULTISIG_SCRIPT_TYPES, type MultisigScriptType } from '../../shared/coins/multisig-script.ts';
import { encodeTxHex, txVsize, txWeight, type BitcoinTx } from '../../shared/coins/tx.ts';
import { testKey } from '../../service/test/keys.ts';

export interface VaultPaymentSize {
  scriptType: MultisigScriptType;
  vsize: number;
  weight: number;
  /** In the coin's smallest unit, at the rate asked for. */
  fee: bigint;
  /** The signed transaction, for the node to decode. */
  hex: string;
}

const KEYS = ['vault bench k1', 'vault bench k2', 'vault bench k3'].map(testKey);
const AMOUNT = 100_000_000n;

/** vsize, weight and fee at `ratePerVbyte` of one signed 2-of-3 payment per script type. */
export function vaultPaymentSizes(params: ChainParams, recipient: string, ratePerVbyte: bigint): VaultPaymentSize[] {
  const payee = addressToScript(params, recipient);
  return MULTISIG_SCRIPT_TYPES.map((scriptType) => {
    const sortKeys = scriptType !== 'p2sh';
    const scripts = multisigScripts(params, 2, KEYS.map((k) => k.publicKey), { scriptType, sortKeys });
    const unsigned: BitcoinTx = {
      version: params.txVersion,
      inputs: [{ prevTxid: new Uint8Array(32).fill(7), vout: 0, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
      outputs: [
        { value: AMOUNT / 4n, script: payee },
        { value: AMOUNT / 2n, script: scripts.scriptPubKey },
      ],
      locktime: 0,
    };
    const spend: MultisigInputSpend = { scriptType, multisigScript: scripts.multisigScript, amount: AMOUNT, scriptPubKey: scripts.scriptPubKey };
    const hash = bytesToHex(multisigInputHash(params, unsigned, 0, spend));
    const signatures = KEYS.slice(0, 2).map((k) => ({ inputIndex: 0, publicKey: k.publicKey, signature: hexToBytes(k.sign(hash)) }));
    const signed = assembleMultisigSpend(params, unsigned, [spend], signatures);
    const vsize = txVsize(signed);
    return { scriptType, vsize, weight: txWeight(signed), fee: BigInt(vsize) * ratePerVbyte, hex: encodeTxHex(signed) };
  });
}

// The same 2-of-3 vault payment (1 input, 2 outputs: the recipient and change back to the vault),
// built and signed in each script type, so the bench prints what a treasurer pays per type at one
// fee rate. Real signed transactions measured by their weight, not the fee estimate. Beside them,
// the same payment from a wsh miniscript vault (the same 2-of-3, or after 144 blocks 1 of 2
// recovery keys; issue 27) on each of its paths, its witness the one the service finalizes.
import { addressToScript } from '../../shared/coins/address.ts';
import { assembleMiniscriptSpend, miniscriptInputHash, readUnsignedMiniscriptInput, unsignedMiniscriptInput } from '../../shared/coins/assemble-miniscript.ts';
import { assembleMultisigSpend, multisigInputHash, type MultisigInputSpend } from '../../shared/coins/assemble-multisig.ts';
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import { compileWshMiniscript } from '../../shared/coins/miniscript-spend.ts';
import { multisigScripts, MULTISIG_SCRIPT_TYPES, type MultisigScriptType, p2wshScript } from '../../shared/coins/multisig-script.ts';
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

export interface MiniscriptPaymentSize {
  path: 'primary' | 'recovery';
  vsize: number;
  weight: number;
  fee: bigint;
  hex: string;
}

const RECOVERY_KEYS = ['vault bench r1', 'vault bench r2'].map(testKey);
/** The vault of issue 27's proof: the bench's 2-of-3, or 1 of 2 recovery keys after 144 blocks. */
export const BENCH_MINISCRIPT = `or_d(multi(2,${KEYS.map((k) => k.publicKeyHex).join(',')}),and_v(v:multi(1,${RECOVERY_KEYS.map((k) => k.publicKeyHex).join(',')}),older(144)))`;

/** vsize, weight and fee at `ratePerVbyte` of the same payment from the miniscript vault, per path. */
export function miniscriptPaymentSizes(params: ChainParams, recipient: string, ratePerVbyte: bigint): MiniscriptPaymentSize[] {
  const payee = addressToScript(params, recipient);
  const compiled = compileWshMiniscript(BENCH_MINISCRIPT);
  const scriptPubKey = p2wshScript(compiled.witnessScript);
  return (
    [
      ['primary', 0, 0xffffffff, KEYS.slice(0, 2)],
      ['recovery', 1, 144, RECOVERY_KEYS.slice(0, 1)],
    ] as const
  ).map(([path, index, sequence, signers]) => {
    const unsigned: BitcoinTx = {
      version: 2,
      inputs: [{ prevTxid: new Uint8Array(32).fill(7), vout: 0, sequence, ...unsignedMiniscriptInput(compiled, index) }],
      outputs: [
        { value: AMOUNT / 4n, script: payee },
        { value: AMOUNT / 2n, script: scriptPubKey },
      ],
      locktime: 0,
    };
    const spend = { ...readUnsignedMiniscriptInput(unsigned.inputs[0]!, 0)!, amount: AMOUNT, scriptPubKey };
    const hash = bytesToHex(miniscriptInputHash(params, unsigned, 0, spend));
    const signatures = signers.map((k) => ({ inputIndex: 0, publicKey: k.publicKey, signature: hexToBytes(k.sign(hash)) }));
    const signed = assembleMiniscriptSpend(params, unsigned, [spend], signatures);
    const vsize = txVsize(signed);
    return { path, vsize, weight: txWeight(signed), fee: BigInt(vsize) * ratePerVbyte, hex: encodeTxHex(signed) };
  });
}

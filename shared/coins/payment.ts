// Builds the unsigned payment of endpoints 6 and 9 as docs/api-decisions.md describes the original service:
// coins taken from each source in the order given, oldest first; outputs `to`, operator fee, change;
// version and locktime from the coin table; each input's scriptSig holding the script it signs.
// The treasury extensions (section 8) add: several recipients, spending exactly the outputs given
// (coin control), a fee rate per vbyte over estimateVsize, and a sequence (BIP125 signalling).
import type { ChainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { encodeCompactSize, hexToBytes } from './bytes.ts';
import { isSegwitScriptType } from './multisig-script.ts';
import type { MultisigScriptType } from './multisig-script.ts';
import { estimateVsize, multisigInputSize, outputSize, P2PKH_INPUT_SIZE, txOverheadSize, type VsizeInput, vsizeInputParts } from './tx-size.ts';
import { parseMultisigRedeemScript } from './script.ts';
import { segwitSignatureHash, signatureHash } from './sighash/index.ts';
import { unsignedWitnessInput } from './unsigned-witness.ts';
import { coinAmount, unitsToDecimal } from './units.ts';
import { newTransparentTx, type Tx, type TxInput, type TxOutput } from './tx.ts';

export interface SpendableOutput {
  /** hex, display order */
  txid: string;
  vout: number;
  amount: bigint;
  scriptPubKey: Uint8Array;
}

export interface PaymentSource {
  /** The P2PKH scriptPubKey (single-sig) or the multisig script (redeem or witness script): what each input signs. */
  scriptCode: Uint8Array;
  /** Multisig sources: how the script is paid to. Absent: P2SH (or P2PKH for single-sig), as always. */
  scriptType?: MultisigScriptType;
  /** Keys that must sign each input of this source, in redeem-script order. */
  publicKeys: Uint8Array[];
  /** Signatures needed per input (1 for single-sig). */
  required: number;
  /** The source's scriptPubKey: where change goes when this source is the first. */
  scriptPubKey: Uint8Array;
  /** Unspent outputs, oldest first. */
  unspent: SpendableOutput[];
  /**
   * Sources that say how their inputs look themselves (miniscript vaults, assemble-miniscript.ts):
   * the unsigned input's witness placeholder, the witness at its largest in bytes, and the
   * nSequence every input of this source carries.
   */
  spendForm?: { unsignedWitness: Uint8Array[]; witnessSize: number; sequence: number };
}

export interface PaymentOutput {
  script: Uint8Array;
  amount: bigint;
}

export interface PaymentRequest {
  params: ChainParams;
  sources: PaymentSource[];
  /** The one recipient of the original API; or `outputs`. */
  to?: PaymentOutput;
  /** Several recipients, in this order (extension); the field of a row named `outputs[i]` in errors. */
  outputs?: readonly PaymentOutput[];
  operatorFee?: PaymentOutput;
  /** Fixed network fee; when absent it is estimated from `feePerVbyte`, else `feePerKb`, and the size. */
  minersFee?: bigint;
  feePerKb: bigint;
  /** Fee rate in smallest units per virtual byte, applied to estimateVsize over the real input types. */
  feePerVbyte?: bigint;
  /** Spend every unspent output of the sources, no more and no fewer (coin control). */
  spendAll?: boolean;
  /** Every input's sequence; default 0xFFFFFFFF (BIP125 signalling: 0xFFFFFFFD). */
  sequence?: number;
  /** Height of the block the payment is for (tip + 1): Zcash transactions carry its branch id. */
  height?: number;
  /** The transaction's version, when not the coin's (relative timelocks need 2, BIP68). */
  version?: number;
}

export interface HashToSign {
  inputIndex: number;
  publicKey: Uint8Array;
  hash: Uint8Array;
}

export interface BuiltPayment {
  tx: Tx;
  /** The virtual size the fee was computed from (signatures at their largest). */
  estimatedVsize: number;
  totalInputValue: bigint;
  minersFee: bigint;
  change: bigint;
  hashes: HashToSign[];
  /** Amount of each input, in order (the amount-committing digests need them). */
  inputAmounts: bigint[];
  /** What each input spends, in order: the outpoint, its amount and script, and the source it belongs to. */
  spends: { txid: string; vout: number; amount: bigint; scriptPubKey: Uint8Array; source: PaymentSource }[];
}

export const SEQUENCE_FINAL = 0xffffffff;
/** BIP125: any sequence below 0xFFFFFFFE signals replaceability; this is the one wallets use. */
export const SEQUENCE_REPLACEABLE = 0xfffffffd;

/**
 * An input's bytes outside the witness and its witness bytes. P2PKH and P2SH inputs are sized as
 * they always were (so their fees do not change); segwit inputs by estimateVsize's parts.
 */
function inputSize(source: PaymentSource): { base: number; witness: number } {
  if (source.spendForm !== undefined) return { base: 32 + 4 + 4 + 1, witness: source.spendForm.witnessSize };
  if (source.scriptType !== undefined && isSegwitScriptType(source.scriptType)) {
    const parts = vsizeInputParts({ scriptType: source.scriptType, m: source.required, n: source.publicKeys.length });
    return { base: 32 + 4 + 4 + encodeCompactSize(parts.scriptSig).length + parts.scriptSig, witness: parts.witness };
  }
  const base = source.required === 1 && source.publicKeys.length === 1 ? P2PKH_INPUT_SIZE : multisigInputSize(source.required, source.scriptCode.length);
  return { base, witness: 0 };
}

/** How estimateVsize sees an input of this source. */
export function vsizeInputOf(source: PaymentSource): VsizeInput {
  if (source.spendForm !== undefined) return { scriptType: 'witness', witness: source.spendForm.witnessSize };
  if (source.scriptType === undefined && source.required === 1 && source.publicKeys.length === 1) return { scriptType: 'p2pkh' };
  return { scriptType: source.scriptType ?? 'p2sh', m: source.required, n: source.publicKeys.length };
}

function feeFor(bytes: number, feePerKb: bigint): bigint {
  return (BigInt(bytes) * feePerKb + 999n) / 1000n;
}

function formatUnits(params: ChainParams, units: bigint): string {
  return `${units} (${unitsToDecimal(units, params.decimals)} ${params.coin})`;
}

export function buildPayment(req: PaymentRequest): BuiltPayment {
  const { params } = req;
  const dust = params.dustLimit;
  if (req.sources.length === 0) throw new CoinError('no source to pay from', 'from');
  const recipients = req.outputs ?? (req.to ? [req.to] : []);
  if (recipients.length === 0) throw new CoinError('nothing to pay: give a recipient', 'outputs');
  recipients.forEach((o, i) => {
    const field = req.outputs ? `outputs[${i}].amount` : 'amount';
    // In the coin's unit with its ticker, as the service's fee refusals are: the desk shows it as is.
    if (o.amount < dust) throw new CoinError(`${req.outputs ? `outputs[${i}]: ` : ''}amount ${coinAmount(params, o.amount)} is below the dust limit of ${coinAmount(params, dust)}: the network would not relay the output`, field);
  });
  const feeOut = req.operatorFee && req.operatorFee.amount >= dust ? req.operatorFee : undefined;

  const fixedOutputs: TxOutput[] = recipients.map((o) => ({ value: o.amount, script: o.script }));
  if (feeOut) fixedOutputs.push({ value: feeOut.amount, script: feeOut.script });
  const changeScript = req.sources[0]!.scriptPubKey;
  const paid = recipients.reduce((sum, o) => sum + o.amount, 0n);
  const target = paid + (feeOut?.amount ?? 0n);

  const chosen: { source: PaymentSource; utxo: SpendableOutput }[] = [];
  let total = 0n;
  let inputBytes = 0;
  // Witness bytes: marker and flag, then each input's stack (an empty one is its zero count).
  let witnessBytes = 0;
  let witnessInputs = 0;
  // Virtual size; without witness inputs exactly the byte size the fee was always computed from.
  const sizeWith = (inputs: number, withChange: boolean) => {
    const base =
      txOverheadSize(params, inputs, fixedOutputs.length + (withChange ? 1 : 0)) +
      inputBytes +
      fixedOutputs.reduce((n, o) => n + outputSize(o.script.length), 0) +
      (withChange ? outputSize(changeScript.length) : 0);
    if (witnessInputs === 0) return base;
    const witness = 2 + witnessBytes + (inputs - witnessInputs);
    return Math.ceil((base * 4 + witness) / 4);
  };
  // The fee-rate extension sizes the transaction with estimateVsize over the chosen inputs' types.
  const vsizeWith = (withChange: boolean) =>
    estimateVsize(
      params,
      chosen.map((c) => vsizeInputOf(c.source)),
      [...fixedOutputs.map((o) => o.script.length), ...(withChange ? [changeScript.length] : [])],
    );
  const minersFeeFor = (withChange: boolean) =>
    req.minersFee ?? (req.feePerVbyte !== undefined ? req.feePerVbyte * BigInt(vsizeWith(withChange)) : feeFor(sizeWith(chosen.length, withChange), req.feePerKb));
  const amountsText = () =>
    req.outputs ? `${recipients.length} outputs totalling ${paid}` : `amount ${paid}`;

  let settled: { minersFee: bigint; change: bigint } | null = null;
  const all = req.sources.flatMap((source) => source.unspent.map((utxo) => ({ source, utxo })));
  for (const [n, { source, utxo }] of all.entries()) {
    chosen.push({ source, utxo });
    total += utxo.amount;
    const size = inputSize(source);
    inputBytes += size.base;
    if (size.witness > 0) {
      witnessBytes += size.witness;
      witnessInputs += 1;
    }
    // Coin control: every output given is spent, so nothing settles before the last.
    if (req.spendAll === true && n < all.length - 1) continue;
    const feeWithChange = minersFeeFor(true);
    if (total >= target + feeWithChange) {
      const change = total - target - feeWithChange;
      if (change >= dust) {
        settled = { minersFee: feeWithChange, change };
        break;
      }
    }
    const feeNoChange = minersFeeFor(false);
    if (total >= target + feeNoChange) {
      // change below dust goes to the miners
      settled = { minersFee: total - target, change: 0n };
      break;
    }
  }
  if (!settled) {
    const available = req.sources.reduce((sum, s) => sum + s.unspent.reduce((t, u) => t + u.amount, 0n), 0n);
    const needed = target + minersFeeFor(false);
    throw new CoinError(
      `insufficient funds: ${req.spendAll === true ? 'the inputs given hold' : 'available'} ${formatUnits(params, available)}, needed ${formatUnits(params, needed)} ` +
        `(${amountsText()}${feeOut ? ` + operator fee ${feeOut.amount}` : ''} + miners fee ${needed - target})`,
      req.spendAll === true ? 'inputs' : req.outputs ? 'outputs' : 'amount',
    );
  }

  const inputs: TxInput[] = chosen.map(({ source, utxo }) => ({
    prevTxid: hexToBytes(utxo.txid, 'txid'),
    vout: utxo.vout,
    // What each input signs travels in the transaction (module unsigned-witness.ts).
    ...(source.spendForm !== undefined
      ? { scriptSig: new Uint8Array(0), witness: source.spendForm.unsignedWitness }
      : source.scriptType !== undefined && isSegwitScriptType(source.scriptType)
        ? unsignedWitnessInput(source.scriptType, source.scriptCode)
        : { scriptSig: source.scriptCode }),
    sequence: source.spendForm?.sequence ?? req.sequence ?? SEQUENCE_FINAL,
  }));
  const outputs = [...fixedOutputs];
  if (settled.change > 0n) outputs.push({ value: settled.change, script: changeScript });
  const built = newTransparentTx(params, { inputs, outputs, ...(req.height !== undefined ? { height: req.height } : {}) });
  const tx = req.version !== undefined && built.format === undefined ? { ...built, version: req.version } : built;
  const prevouts = chosen.map(({ utxo }) => ({ amount: utxo.amount, scriptPubKey: utxo.scriptPubKey }));

  const hashes: HashToSign[] = [];
  chosen.forEach(({ source, utxo }, inputIndex) => {
    const hash =
      source.scriptType !== undefined && isSegwitScriptType(source.scriptType)
        ? segwitSignatureHash(params, tx, inputIndex, { witnessScript: source.scriptCode, amount: utxo.amount, scriptPubKey: utxo.scriptPubKey })
        : signatureHash(params, tx, inputIndex, { scriptCode: source.scriptCode, prevouts });
    for (const publicKey of source.publicKeys) hashes.push({ inputIndex, publicKey, hash });
  });
  return {
    tx,
    estimatedVsize: req.feePerVbyte !== undefined ? vsizeWith(settled.change > 0n) : sizeWith(chosen.length, settled.change > 0n),
    totalInputValue: total,
    minersFee: settled.minersFee,
    change: settled.change,
    hashes,
    inputAmounts: chosen.map((c) => c.utxo.amount),
    spends: chosen.map(({ source, utxo }) => ({ txid: utxo.txid, vout: utxo.vout, amount: utxo.amount, scriptPubKey: utxo.scriptPubKey, source })),
  };
}

/** The keys and threshold a multisig source's redeem script commits to. */
export function multisigSource(redeemScript: Uint8Array, scriptPubKey: Uint8Array, unspent: SpendableOutput[], scriptType?: MultisigScriptType): PaymentSource {
  const parsed = parseMultisigRedeemScript(redeemScript);
  if (!parsed) throw new CoinError('not a multisig redeem script', 'redeem_scripts');
  return { scriptCode: redeemScript, publicKeys: parsed.pubkeys, required: parsed.m, scriptPubKey, unspent, ...(scriptType !== undefined ? { scriptType } : {}) };
}

// Independent implementations the fork-coin tests check our transactions against: Bitcoin Cash's
// script interpreter (bitcore-lib-cash) and BitGo's utxo-lib (Bitcoin Gold, Zcash formats).
// Test-only; never imported by the product.
import { createRequire } from 'node:module';
import * as utxolib from '@bitgo/utxo-lib';

const require = createRequire(import.meta.url);

interface BchScript {
  toBuffer(): Buffer;
}
interface BchInput {
  script: BchScript;
}
interface BchTransaction {
  inputs: BchInput[];
}
interface BchLib {
  Transaction: new (hex: string) => BchTransaction;
  Script: { new (buf: Buffer): BchScript; Interpreter: BchInterpreterClass };
  crypto: { BN: { fromNumber(n: number): unknown; fromString(s: string): unknown } };
}
interface BchInterpreter {
  verify(scriptSig: BchScript, scriptPubKey: BchScript, tx: BchTransaction, nin: number, flags: number, satoshis: unknown): boolean;
  errstr: string;
}
type BchInterpreterClass = (new () => BchInterpreter) & Record<string, number>;

const bch = require('bitcore-lib-cash') as BchLib;

/** Runs Bitcoin Cash's script interpreter on every input; returns the error of each failing input. */
export function bitcoinCashScriptErrors(txHex: string, spent: readonly { script: Uint8Array; amount: bigint }[]): string[] {
  const I = bch.Script.Interpreter;
  // (SCRIPT_VERIFY_LOW_S is left out: bitcore-lib-cash 11.5 fails on it with valid low-S signatures;
  // low S is enforced by our own signature module.)
  const flags = I.SCRIPT_VERIFY_P2SH! | I.SCRIPT_VERIFY_STRICTENC! | I.SCRIPT_VERIFY_DERSIG! | I.SCRIPT_VERIFY_NULLFAIL! |
    I.SCRIPT_ENABLE_SIGHASH_FORKID! | I.SCRIPT_VERIFY_SIGPUSHONLY! | I.SCRIPT_VERIFY_CLEANSTACK!;
  const tx = new bch.Transaction(txHex);
  const errors: string[] = [];
  tx.inputs.forEach((input, i) => {
    const interpreter = new I();
    const prev = spent[i]!;
    const ok = interpreter.verify(input.script, new bch.Script(Buffer.from(prev.script)), tx, i, flags, bch.crypto.BN.fromString(prev.amount.toString()));
    if (!ok) errors.push(`input ${i}: ${interpreter.errstr}`);
  });
  return errors;
}

export type UtxoLibNetwork = 'bitcoingold' | 'zcash';

/**
 * utxo-lib's signature hash of each input (its own implementation of the coin's digest), for the
 * script code given (P2PKH script or redeem script) and the spent amount.
 */
export function utxoLibSighashes(
  network: UtxoLibNetwork,
  rawTx: Uint8Array,
  inputs: readonly { scriptCode: Uint8Array; amount: bigint }[],
  hashType: number,
  consensusBranchId?: number,
): Uint8Array[] {
  const tx = utxolib.bitgo.createTransactionFromBuffer<bigint>(Buffer.from(rawTx), utxolib.networks[network], { amountType: 'bigint' });
  if (consensusBranchId !== undefined && 'consensusBranchId' in tx) (tx as unknown as { consensusBranchId: number }).consensusBranchId = consensusBranchId;
  return inputs.map((input, i) => new Uint8Array(tx.hashForSignatureByNetwork(i, Buffer.from(input.scriptCode), input.amount, hashType)));
}

/** utxo-lib's txid of a raw transaction of `network`. */
export function utxoLibTxid(network: UtxoLibNetwork, rawTx: Uint8Array): string {
  return utxolib.bitgo.createTransactionFromBuffer<bigint>(Buffer.from(rawTx), utxolib.networks[network], { amountType: 'bigint' }).getId();
}

// Endpoints 9-10 for wsh miniscript vaults (issue 27; docs/api-decisions.md, section 12): the
// sources of a payment on a chosen spending path, what each input of it spends (its path, its
// nSequence, the block its path opens at), and at sign-and-send the depth of every coin checked
// against its path's relative timelock before the shared assembler checks signatures and builds
// the cheapest witness. Nothing the node would refuse for a timelock or a signature is broadcast.
import { assembleMiniscriptSpend, describePath, type MiniscriptInputSpend, pathOf, readUnsignedMiniscriptInput, relativeLockProblem, RELATIVE_LOCK_TX_VERSION, unsignedMiniscriptInput } from '../../shared/coins/assemble-miniscript.ts';
import type { SuppliedSignature } from '../../shared/coins/assemble.ts';
import { bytesToHex, equalBytes, hexToBytes } from '../../shared/coins/bytes.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { pathOpensAt } from '../../shared/coins/vault-spend.ts';
import { miniscriptOfWitnessScript } from '../../shared/coins/miniscript-from-script.ts';
import { type CompiledMiniscript, compileWshMiniscript, type MiniscriptPath, miniscriptPaths } from '../../shared/coins/miniscript-spend.ts';
import { p2wshScript, requireScriptType } from '../../shared/coins/multisig-script.ts';
import type { PaymentSource } from '../../shared/coins/payment.ts';
import { SEQUENCE_FINAL, SEQUENCE_REPLACEABLE } from '../../shared/coins/payment.ts';
import type { BitcoinTx } from '../../shared/coins/tx.ts';
import { checkDescriptorChecksum } from '../../shared/files/descriptor-checksum.ts';
import { FileFormatError } from '../../shared/files/errors.ts';
import { outpointKey, type UtxoBackend } from '../chains/backend.ts';
import { ApiError, badRequest } from '../errors.ts';
import { buildUnsignedPayment, type MiniscriptInputStatement, type PaymentTerms, type UnsignedPayment } from './build-payment.ts';
import { findUnspent } from './unspent-pages.ts';

/** The miniscript fields of a redeem_scripts entry (extension). */
export interface MiniscriptEntry {
  descriptor?: string | undefined;
  miniscript?: string | undefined;
  witness_script?: string | undefined;
  path?: number | undefined;
  sequence?: number | undefined;
}

export function isMiniscriptEntry(e: MiniscriptEntry): boolean {
  return e.descriptor !== undefined || e.miniscript !== undefined || e.witness_script !== undefined;
}

/** One vault of the request: its compiled miniscript, paths, chosen path and nSequence. */
export interface MiniscriptVault {
  compiled: CompiledMiniscript;
  paths: MiniscriptPath[];
  path: MiniscriptPath;
  sequence: number;
  scriptPubKey: Uint8Array;
}

/** The miniscript inside wsh(...), with the descriptor's checksum checked when it has one. */
function miniscriptOfDescriptor(text: string, field: string): string {
  let descriptor: string;
  try {
    descriptor = checkDescriptorChecksum(text.trim()).descriptor;
  } catch (err) {
    if (err instanceof FileFormatError) throw badRequest(`${field}: ${err.message}`);
    throw err;
  }
  const inner = /^wsh\((.*)\)$/s.exec(descriptor);
  if (!inner) throw badRequest(`${field}: this extension takes a wsh(<miniscript>) descriptor with concrete keys; got ${descriptor.slice(0, 40)}${descriptor.length > 40 ? '…' : ''}`);
  if (/^(sortedmulti|multi)\(/.test(inner[1]!) && /[xt]pub/.test(inner[1]!)) throw badRequest(`${field}: keys must be concrete public keys in hex, not extended keys`);
  return inner[1]!;
}

/** Reads one entry: the miniscript (from the descriptor or as given), its witness script, path and nSequence. */
export function miniscriptVault(params: UtxoBackend['params'], e: MiniscriptEntry, i: number, replaceable: boolean): MiniscriptVault {
  const field = `redeem_scripts[${i}]`;
  if (e.descriptor !== undefined && e.miniscript !== undefined) throw badRequest(`${field}: give descriptor (wsh(<miniscript>)), miniscript or witness_script, not both descriptor and miniscript`);
  try {
    requireScriptType(params, 'p2wsh');
  } catch (err) {
    if (err instanceof CoinError) throw badRequest(`${field}: ${err.message}`);
    throw err;
  }
  const given = e.witness_script === undefined ? undefined : hexToBytes(e.witness_script.replace(/^0x/i, ''), `${field}.witness_script`);
  let compiled: CompiledMiniscript;
  if (e.descriptor !== undefined || e.miniscript !== undefined) {
    const text = e.descriptor !== undefined ? miniscriptOfDescriptor(e.descriptor, `${field}.descriptor`) : e.miniscript!;
    compiled = compileWshMiniscript(text, `${field}.${e.descriptor !== undefined ? 'descriptor' : 'miniscript'}`);
    if (given !== undefined && !equalBytes(given, compiled.witnessScript)) {
      throw badRequest(`${field}.witness_script is not the script the miniscript compiles to (${bytesToHex(compiled.witnessScript)})`);
    }
  } else {
    // The witness script alone: read back as its miniscript (checked by compiling it again).
    compiled = miniscriptOfWitnessScript(given!, `${field}.witness_script`);
  }
  const paths = miniscriptPaths(compiled);
  if (e.path === undefined) throw badRequest(`${field}.path is required: the spending path, one of ${paths.map(describePath).join(', ')}`);
  const path = pathOf(paths, e.path, `${field}.path`);
  const fallback = path.older ?? (replaceable ? SEQUENCE_REPLACEABLE : SEQUENCE_FINAL);
  const sequence = e.sequence ?? fallback;
  // The same words the assembler would say at sign-and-send: refused before anything is signed.
  const problem = relativeLockProblem({ version: RELATIVE_LOCK_TX_VERSION, inputs: [{ prevTxid: new Uint8Array(32), vout: 0, scriptSig: new Uint8Array(0), sequence }], outputs: [], locktime: 0 }, 0, path);
  if (problem !== null) throw badRequest(`${field}.sequence: ${problem.replace(/^input 0 on /, '')}`);
  if (replaceable && sequence >= 0xfffffffe) throw badRequest(`${field}.sequence ${sequence} does not signal replaceability (BIP125 needs below 0xFFFFFFFE) while replaceable is true`);
  return { compiled, paths, path, sequence, scriptPubKey: p2wshScript(compiled.witnessScript) };
}

/** The payment sources of the miniscript entries, each spending its coins on its chosen path. */
export function miniscriptSources(vaults: readonly MiniscriptVault[]): PaymentSource[] {
  const sources: PaymentSource[] = [];
  for (const v of vaults) {
    sources.push({
      scriptCode: v.compiled.witnessScript,
      scriptType: 'p2wsh',
      publicKeys: v.path.keys.map((k) => hexToBytes(k)),
      required: v.path.signatures,
      scriptPubKey: v.scriptPubKey,
      unspent: [],
      spendForm: { unsignedWitness: unsignedMiniscriptInput(v.compiled, v.path.index).witness, witnessSize: v.path.largestWitness, sequence: v.sequence },
    });
  }
  return sources;
}

/** The first block that can hold a spend of a coin confirmed at `height` on `path` (BIP68: coin height + older). */
export function opensAt(height: number | null, path: MiniscriptPath): number | null {
  return height === null || path.older === null ? null : pathOpensAt(height, path.older);
}

/** Each input's statement, in order; the heights are the index's. */
export async function miniscriptStatements(backend: UtxoBackend, inputs: readonly { txid: string; vout: number; scriptPubKey: Uint8Array }[], vaults: readonly MiniscriptVault[]): Promise<MiniscriptInputStatement[]> {
  const rows = await findUnspent(backend, vaults.map((v) => v.scriptPubKey), inputs);
  return inputs.map((input) => {
    const vault = vaults.find((v) => equalBytes(v.scriptPubKey, input.scriptPubKey))!;
    const height = rows.get(outpointKey(input.txid, input.vout))?.height ?? null;
    return { miniscript: vault.compiled.miniscript, path: vault.path, sequence: vault.sequence, height, spendableAtHeight: opensAt(height, vault.path) };
  });
}

/** Whether an unsigned transaction's inputs are in the miniscript form (all of them, or refused). */
export function isMiniscriptTx(unsigned: BitcoinTx): boolean {
  const seen = new Map();
  const forms = unsigned.inputs.map((input, i) => readUnsignedMiniscriptInput(input, i, seen) !== null);
  if (!forms.some(Boolean)) return false;
  if (!forms.every(Boolean)) throw new CoinError('tx: a payment spends either miniscript inputs or multisig inputs, not both', 'tx');
  return true;
}

/**
 * Sign-and-send for miniscript inputs: for every input the amount, scriptPubKey and depth of the
 * coin are read from the service's chain data, a coin not deep enough for its path is refused
 * naming the block the path opens at, and the shared assembler checks every signature (BIP143,
 * the path's keys) and picks the cheapest witness.
 */
export async function assembleMiniscriptInputs(backend: UtxoBackend, unsigned: BitcoinTx, signatures: readonly SuppliedSignature[]): Promise<BitcoinTx> {
  const outpoints = unsigned.inputs.map((i) => ({ txid: bytesToHex(i.prevTxid), vout: i.vout }));
  const known = await backend.outputs(outpoints);
  const seen = new Map();
  const spends: MiniscriptInputSpend[] = unsigned.inputs.map((input, i) => {
    const read = readUnsignedMiniscriptInput(input, i, seen)!;
    const o = outpoints[i]!;
    const found = known.get(outpointKey(o.txid, o.vout));
    if (!found) throw new ApiError(409, `input ${i} spends ${o.txid}:${o.vout}, an output this service does not know: its amount is needed to check the signatures`);
    return { ...read, amount: found.amount, scriptPubKey: found.script };
  });
  // Signatures and the witness first (their refusals name keys); then the timelock against the chain.
  const signed = assembleMiniscriptSpend(backend.params, unsigned, spends, signatures);
  await checkDepths(backend, outpoints, spends);
  return signed;
}

async function checkDepths(backend: UtxoBackend, outpoints: readonly { txid: string; vout: number }[], spends: readonly MiniscriptInputSpend[]): Promise<void> {
  const timelocked = spends.map((s, i) => ({ s, i, path: s.paths[s.path]! })).filter((x) => x.path.older !== null);
  if (timelocked.length === 0) return;
  const rows = await findUnspent(backend, timelocked.map((x) => x.s.scriptPubKey!), timelocked.map((x) => outpoints[x.i]!));
  const tip = await backend.indexedHeight();
  for (const { i, path } of timelocked) {
    const o = outpoints[i]!;
    const row = rows.get(outpointKey(o.txid, o.vout));
    const what = `input ${i} spends ${o.txid}:${o.vout} on ${describePath(path)}`;
    if (!row) throw new ApiError(409, `${what}, an output that is not unspent in this service's chain data: its depth cannot be checked against the path's timelock`);
    if (row.height === null) throw new ApiError(422, `${what}: the coin is unconfirmed; the path opens ${path.older} blocks after the block that confirms it; nothing was broadcast`);
    const opens = opensAt(row.height, path)!;
    // The node checks the spend as if in the block after its tip (BIP68): it needs tip + 1 >= opens.
    if (tip === null || tip + 1 < opens) {
      throw new ApiError(
        422,
        `${what}: the coin confirmed in block ${row.height}, so this path opens at block ${opens} (the first block that can hold the spend); the chain is at block ${tip ?? 'unknown'}, ${opens - 1 - (tip ?? 0)} block(s) to go; nothing was broadcast (the node would refuse it as non-BIP68-final)`,
      );
    }
  }
}

/**
 * Endpoint 9 with miniscript entries: every entry is a vault (mixing with M-of-N entries is a 400),
 * the transaction has version 2 (BIP68), and each input states its path and when the path opens.
 */
export async function buildMiniscriptPayment(backend: UtxoBackend, entries: readonly MiniscriptEntry[], terms: PaymentTerms & { number_of_required_signatures?: number | undefined }): Promise<UnsignedPayment> {
  entries.forEach((e, i) => {
    if (!isMiniscriptEntry(e)) throw badRequest(`redeem_scripts[${i}]: a payment spends either miniscript vaults (descriptor, miniscript or witness_script) or M-of-N redeem scripts (public_keys), not both`);
    if ((e as { public_keys?: unknown }).public_keys !== undefined) throw badRequest(`redeem_scripts[${i}]: give descriptor, miniscript or witness_script, or public_keys, not both`);
  });
  if (terms.number_of_required_signatures !== undefined) throw badRequest('number_of_required_signatures is for M-of-N redeem scripts; a miniscript vault\'s path says how many sign');
  const vaults = entries.map((e, i) => miniscriptVault(backend.params, e, i, terms.replaceable === true));
  const built = await buildUnsignedPayment(backend, miniscriptSources(vaults), terms, { version: RELATIVE_LOCK_TX_VERSION });
  const statements = await miniscriptStatements(backend, built.inputs, vaults);
  return { ...built, inputs: built.inputs.map((input, i) => ({ ...input, miniscript: statements[i]! })) };
}

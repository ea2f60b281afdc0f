// The one spend pipeline: every payment the desk proposes (a proposal, a batch, a fee bump, a cancel,
// a child paying for its parent) is built by the service from exactly the inputs the desk chose
// (the treasury fields of docs/api-decisions.md, section 8), then checked offline here and only
// then stored awaiting signatures. Nothing is taken on the service's word: each input's amount and
// script is read from its own previous transaction; the size is the desk's own estimate; the fee
// is inputs - outputs and must be what was asked, from both sides (a rate: exactly rate x vsize,
// or at most the dust change above it; a fee: exactly that fee); outputs and every hash are
// recomputed. The modules that choose what to spend (propose, replace, cpfp) sit above this one.
import { randomUUID } from 'node:crypto';
import type { MultiSigPayment, MultisigHashesToSign } from '../../../shared/api/schemas.ts';
import { addressToScript, bytesToHex, decodeTx, equalBytes, estimateVsize, hexToBytes, scriptToAddress, type ChainParams, type Tx, type TxInput } from '../../../shared/coins/index.ts';
import { addressPath } from '../../../shared/coins/multisig-address.ts';
import { readUnsignedMultisigInput } from '../../../shared/coins/unsigned-witness.ts';
import { readUnsignedMiniscriptInput } from '../../../shared/coins/assemble-miniscript.ts';
import { CoinError } from '../../../shared/coins/errors.ts';
import type { VaultPolicy } from '../../../shared/coins/vault-policy.ts';
import { vaultInputSpend, vaultWitnessSize } from '../../../shared/coins/vault-spend.ts';
import { PaymentCheckError } from '../../../shared/files/errors.ts';
import { paymentHash } from '../../../shared/files/signing-files.ts';
import { refuseAboveMaxFee } from './fee-limit.ts';
import { verifyUnsignedPayment, verifyUnsignedVaultPayment, type ExpectedOutput, type VerifiedPayment } from '../../../shared/files/unsigned-payment.ts';
import { CoordinatorError } from '../errors.ts';
import type { AddressRow, PaymentKind, PaymentRow, WalletRow } from '../store/store.ts';
import { nextChangeAddress, requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { scriptOptions, walletAddress } from '../wallets/script.ts';
import { storedVaultPolicy } from '../vaults/vaults.ts';
import type { Recipient } from './batch.ts';
import { rateFeeRefusal } from './fees.ts';
import { IN_FLIGHT } from './payments.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import { unknownPathRefusal, vaultPathRefusal } from './vault-paths.ts';
import { hexOf, outpointKey, type Outpoint } from './outpoints.ts';
import { coinAmount } from '../../../shared/coins/units.ts';
import { canonicalLocks, exactly, lockProblems, type SpendKind } from '../../../shared/coins/spend-locks.ts';
import { feeRateText } from '../units.ts';

/** BIP125's signalling sequence: the coin codec's one constant, under the name the payments wing reads it by. */
export { SEQUENCE_REPLACEABLE as REPLACEABLE_SEQUENCE } from '../../../shared/coins/payment.ts';

export interface TreasurySpend {
  to: string;
  amount: bigint;
  /** A batch's every recipient in output order (`to` and `amount` are then its first and its total). */
  recipients?: readonly Recipient[];
  operatorFee?: { address: string; amount: bigint };
  /**
   * Exactly these outputs are spent (the desk's choice, or the treasurer's coin control). One given
   * with the `amount` the service listed (what the caller chose by, and what a send-all's amount is
   * taken from) must hold exactly that, by its own transaction.
   */
  inputs: readonly (Outpoint & { amount?: bigint })[];
  /** One of the two: units per vbyte (the service computes the fee), or the fee itself. */
  fee: { rate: bigint } | { amount: bigint };
  replaceable: boolean;
  /** Receives the change; its script is the first source (docs/api-decisions.md). Default: a fresh change address. */
  changeAddress?: AddressRow;
  kind: PaymentKind;
  /** The payment whose transaction this one replaces (bump, cancel). */
  replaces?: PaymentRow;
  /** What the payment is for, its 'payment' label (a replacement keeps the one of what it replaces). */
  purpose?: string;
  /** A vault's spending path, by the blocks after which it opens (default 0: the primary path). */
  vaultPath?: number;
}

/** The recipients of a spend, in output order. Pure. */
export const recipientsOf = (s: { to: string; amount: bigint; recipients?: readonly Recipient[] | undefined }): readonly Recipient[] => s.recipients ?? [{ to: s.to, amount: s.amount }];

/** The address as this coin shows it (an accepted alternative prefix becomes the shown one). */
export function canonicalAddress(params: ChainParams, address: string, field: string): string {
  const shown = scriptToAddress(params, addressToScript(params, address.trim(), field));
  if (shown === null) throw new CoordinatorError('bad_address', `${field} ${address} has no address form on ${params.coin}`);
  return shown;
}

/** The outputs a spend must produce, in the service's order (docs/api-decisions.md). Pure. */
export function expectedOutputs(
  params: ChainParams,
  p: { to: string; amount: bigint; minersFee: bigint; operatorFee?: { address: string; amount: bigint } | undefined; recipients?: readonly Recipient[] | undefined },
  totalInput: bigint,
  changeAddress: string,
): { outputs: ExpectedOutput[]; minersFee: bigint } {
  const outputs: ExpectedOutput[] = recipientsOf(p).map((r) => ({ address: r.to, amount: r.amount, purpose: 'payment' }));
  const fee = p.operatorFee?.amount ?? 0n;
  if (p.operatorFee) outputs.push({ address: p.operatorFee.address, amount: fee, purpose: 'operator_fee' });
  const change = totalInput - p.amount - fee - p.minersFee;
  if (change < 0n) throw new CoordinatorError('proposal_refused', `the inputs bring ${coinAmount(params, totalInput)}, less than the ${coinAmount(params, p.amount + fee + p.minersFee)} asked for`);
  // Change below dust goes to the miners (docs/api-decisions.md).
  if (change >= params.dustLimit) outputs.push({ address: changeAddress, amount: change, purpose: 'change' });
  return { outputs, minersFee: change >= params.dustLimit ? p.minersFee : p.minersFee + change };
}

/**
 * The virtual size of a spend of `inputs` of the wallet paying `outputs` (addresses), signatures at
 * their largest: the desk's own figure, which the service's stated size must equal. A vault's
 * inputs are sized by the largest witness of the path spent (`vaultWitness`, vaultWitnessSize).
 */
export function spendVsize(params: ChainParams, w: WalletRow, n: number, inputs: number, outputs: readonly string[], vaultWitness?: number): number {
  const input = vaultWitness !== undefined ? { scriptType: 'witness' as const, witness: vaultWitness } : { scriptType: w.scriptType, m: w.m, n };
  return estimateVsize(params, new Array(inputs).fill(input), outputs.map((a) => addressToScript(params, a).length));
}

/** A vault spend: the policy and the path, by the blocks after which it opens. */
export interface VaultSpend {
  policy: VaultPolicy;
  blocks: number;
}

/** The largest witness of a vault's input on `blocks`' path (undefined for an M-of-N wallet): spendVsize's `vaultWitness`. */
export function walletVaultWitness(deps: Pick<CoreDeps, 'store'>, w: WalletRow, blocks = 0): number | undefined {
  if (!w.vaultTemplate) return undefined;
  const unknown = unknownPathRefusal(deps, w, blocks);
  if (unknown) throw new CoordinatorError('proposal_refused', `refusing the proposed payment: ${unknown}`);
  try {
    return vaultWitnessSize(walletParams(w), storedVaultPolicy(deps, w), blocks);
  } catch (err) {
    if (err instanceof CoinError) throw new CoordinatorError('proposal_refused', err.message);
    throw err;
  }
}

/** Change addresses that payments not yet confirmed will pay to: not free for the next payment. */
export function changeInFlight(deps: CoreDeps, walletId: string, params: ChainParams): Set<string> {
  const change = new Set(deps.store.addresses(walletId).filter((a) => a.change).map((a) => a.address));
  const out = new Set<string>();
  for (const p of deps.store.payments(walletId)) {
    if (!IN_FLIGHT.includes(p.state)) continue;
    for (const o of decodeTx(p.unsignedTx, params).outputs) {
      const address = scriptToAddress(params, o.script);
      if (address !== null && change.has(address)) out.add(address);
    }
  }
  return out;
}

/** A fresh change address: not one that a payment in flight already pays. */
export function freshChangeAddress(deps: CoreDeps, walletId: string): Promise<AddressRow> {
  return nextChangeAddress(deps, walletId, changeInFlight(deps, walletId, walletParams(requireWallet(deps, walletId))));
}

/** The redeem_scripts entry of one of the wallet's addresses, as the service takes it. */
function source(params: ChainParams, w: WalletRow, xpubs: readonly string[], a: AddressRow, vault: VaultSpend | null): MultiSigPayment['redeem_scripts'][number] {
  if (vault) {
    // The miniscript extension (docs/api-decisions.md, section 12): the concrete descriptor and the
    // path; the nSequence is the service's default (the path's older(), or final / replaceable).
    const v = vaultInputSpend(params, vault.policy, a.change, a.index, vault.blocks);
    return { descriptor: v.descriptor, path: v.path.index };
  }
  return {
    public_keys: walletAddress(params, w, xpubs, a.change, a.index).publicKeys.map(bytesToHex),
    ...(w.scriptType !== 'p2sh' ? { script_type: w.scriptType } : {}),
    ...(w.sortKeys ? { sort_keys: true } : {}),
  };
}

/** The wallet's address whose script each outpoint pays, read from the outpoints' own transactions. */
export async function ownersOf(deps: CoreDeps, w: WalletRow, inputs: readonly Outpoint[]): Promise<{ proven: PreviousTransactions; owners: AddressRow[]; amounts: bigint[] }> {
  const params = walletParams(w);
  const proven = await PreviousTransactions.fetch(deps.api, w.coin, params, inputs.map((i) => hexOf(i.txid)));
  const addresses = deps.store.addresses(w.id);
  const owners: AddressRow[] = [];
  const amounts: bigint[] = [];
  for (const i of inputs) {
    const out = proven.output(hexOf(i.txid), i.vout);
    if (!out) throw new CoordinatorError('proposal_refused', `${outpointKey(i)} is no output of its transaction`);
    const owner = addresses.find((a) => equalBytes(addressToScript(params, a.address), out.script));
    if (!owner) throw new CoordinatorError('proposal_refused', `${outpointKey(i)} does not pay one of this wallet's addresses`);
    owners.push(owner);
    amounts.push(out.value);
  }
  return { proven, owners, amounts };
}

/** The create request for a spend: change to the first source, then each input's own address once. */
function spendRequest(params: ChainParams, w: WalletRow, xpubs: readonly string[], s: TreasurySpend, change: AddressRow, owners: readonly AddressRow[], vault: VaultSpend | null): MultiSigPayment {
  const rows = [change, ...owners.filter((a, i) => a.address !== change.address && owners.findIndex((b) => b.address === a.address) === i)];
  return {
    // A vault's path says how many sign (the extension refuses the field beside vaults).
    ...(vault ? {} : { number_of_required_signatures: w.m }),
    // A batch goes as `outputs`, every recipient kept (a bump of a batch must pay each one as before).
    ...(s.recipients && s.recipients.length > 1 ? { outputs: s.recipients.map((r) => ({ to: r.to, amount: r.amount })) } : { to: s.to, amount: s.amount }),
    ...('rate' in s.fee ? { fee_rate: s.fee.rate } : { miners_fee: s.fee.amount }),
    // Only when asked; the callers ask only where the coin's nodes relay replacements (its row's bip125).
    ...(s.replaceable ? { replaceable: true } : {}),
    inputs: s.inputs.map((i) => ({ txid: hexOf(i.txid), vout: i.vout })),
    ...(s.operatorFee ? { fee_address: s.operatorFee.address, fee_amount: s.operatorFee.amount } : {}),
    redeem_scripts: rows.map((a) => source(params, w, xpubs, a, vault)),
  };
}

/** The service's unsigned transaction, decoded; a refusal in words when it is not a transaction. */
export function decodeServiceTx(params: ChainParams, hex: string, refuse: (why: string) => never): { tx: Uint8Array; decoded: Tx } {
  try {
    const tx = hexToBytes(hexOf(hex));
    return { tx, decoded: decodeTx(tx, params) };
  } catch (err) {
    return refuse(`the service's transaction cannot be decoded: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The wallet address an unsigned input of the service's transaction spends, read from its placeholder
 * (the redeem or witness script) and found among `rows`; a refusal in words otherwise.
 */
export function inputOwner(inp: TxInput, i: number, w: WalletRow, rows: readonly AddressRow[], rowsAre: string, refuse: (why: string) => never): AddressRow {
  let read;
  try {
    read = readUnsignedMultisigInput(inp, i);
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err));
  }
  if (!read) return refuse(`input ${i} is not an unsigned multisig input`);
  if (read.scriptType !== w.scriptType) return refuse(`input ${i} is spent as ${read.scriptType}, this wallet is ${w.scriptType}`);
  const { multisigScript } = read;
  const owner = rows.find((a) => equalBytes(a.redeemScript, multisigScript));
  return owner ?? refuse(`input ${i} does not spend from this wallet's ${rowsAre}`);
}

/** The vault address an unsigned input of the service's transaction spends, by its placeholder's witness script. */
function vaultInputOwner(inp: TxInput, i: number, rows: readonly AddressRow[], refuse: (why: string) => never): AddressRow {
  let read;
  try {
    read = readUnsignedMiniscriptInput(inp, i);
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err));
  }
  if (!read) return refuse(`input ${i} is not an unsigned vault input (miniscript, path, witness script)`);
  const script = read.compiled.witnessScript;
  return rows.find((a) => equalBytes(a.redeemScript, script)) ?? refuse(`input ${i}'s witness script is not the one this vault derives for any of its addresses`);
}

/** A payment's purpose, its 'payment' label: call inside the transaction that stores the payment. */
export function writePurpose(deps: CoreDeps, walletId: string, paymentId: string, purpose: string): void {
  if (purpose === '') return;
  deps.store.labels.put(walletId, { type: 'payment', ref: paymentId, label: purpose, spendable: null }, new Date().toISOString());
  deps.store.audit(deps.actor, 'label.set', `payment ${paymentId}: "${purpose}"`, null, { walletId, paymentId });
}

/** Every (input, key) of ours has exactly one hash from the service, equal to the one we computed. */
function checkServiceHashes(verified: VerifiedPayment, hashes: MultisigHashesToSign['hashes'], refuse: (why: string) => never): void {
  const want = new Map<string, string>();
  for (const i of verified.inputs) for (const k of i.publicKeys) want.set(`${i.index}:${bytesToHex(k)}`, bytesToHex(i.hash));
  const seen = new Set<string>();
  for (const h of hashes) {
    const key = `${h.input_index}:${hexOf(h.public_key)}`;
    const ours = want.get(key);
    if (ours === undefined) refuse(`the service gave a hash for input ${h.input_index} and key ${h.public_key}, which does not sign that input`);
    if (seen.has(key)) refuse(`the service gave two hashes for input ${h.input_index} and key ${h.public_key}`);
    if (ours !== hexOf(h.hash_to_sign)) refuse(`the hash of input ${h.input_index} for key ${h.public_key} is ${h.hash_to_sign}, this app computes ${ours}`);
    seen.add(key);
  }
  for (const key of want.keys()) if (!seen.has(key)) refuse(`the service gave no hash for input/key ${key}`);
}

const WHAT: Record<PaymentKind, string> = { payment: 'payment', bump: 'fee bump', cancel: 'cancel', cpfp: 'child-pays-for-parent' };

/** The chain's tip as the service states it, only to say in words how far a lock reaches (undefined when unknown). */
async function tipFor(deps: CoreDeps, coin: string): Promise<number | undefined> {
  try {
    return (await deps.api.status()).coins.find((c) => c.coin === coin)?.tip_height ?? undefined;
  } catch {
    return undefined;
  }
}

/** The kind of spend the lock rule knows this one as: a payment of several recipients is a batch, one on a recovery path a recovery. */
function spendKindOf(s: TreasurySpend, vault: VaultSpend | null): SpendKind {
  if (s.kind !== 'payment') return s.kind;
  if (vault && vault.blocks > 0) return 'recovery';
  return s.recipients && s.recipients.length > 1 ? 'batch' : 'payment';
}

/**
 * Builds the spend through the service, checks it offline, stores it awaiting signatures: the one
 * build-verify-store path of every kind of spend. Refusals are CoordinatorError('proposal_refused')
 * in words, and nothing is stored.
 */
export async function proposeTreasurySpend(deps: CoreDeps, walletId: string, s: TreasurySpend): Promise<PaymentRow> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const refuse = (why: string): never => {
    throw new CoordinatorError('proposal_refused', `refusing the proposed ${WHAT[s.kind]}: ${why}`);
  };
  const shown = (units: bigint) => coinAmount(params, units);
  if (s.inputs.length === 0) refuse('it spends nothing');
  const recipients = s.recipients && s.recipients.length > 1 ? s.recipients.map((r, i) => ({ ...r, to: canonicalAddress(params, r.to, `recipient ${i + 1}`) })) : undefined;
  const to = recipients?.[0]?.to ?? canonicalAddress(params, s.to, 'to');
  const operatorFee = s.operatorFee ? { address: canonicalAddress(params, s.operatorFee.address, 'operator fee address'), amount: s.operatorFee.amount } : undefined;
  const spend: TreasurySpend = { ...s, to, ...(recipients ? { recipients } : {}), ...(operatorFee ? { operatorFee } : {}) };
  const xpubs = deps.store.cosigners(walletId).map((c) => c.xpub);
  let owned;
  try {
    owned = await ownersOf(deps, w, s.inputs);
  } catch (err) {
    if (err instanceof CoordinatorError) return refuse(err.message);
    throw err;
  }
  const { proven, owners, amounts } = owned;
  // A send-all's amount is the listed total less the fee: an output listed short would pass the
  // difference to the miners as dust change, unseen. What the service listed must be what is spent.
  s.inputs.forEach((i, k) => {
    if (i.amount !== undefined && i.amount !== amounts[k]) refuse(`the service lists ${outpointKey(i)} as holding ${shown(i.amount)}; its transaction says ${shown(amounts[k]!)}`);
  });
  let vault: VaultSpend | null = null;
  if (w.vaultTemplate) {
    // A vault's path first (one not open yet for a chosen coin is refused naming the block).
    const blocks = s.vaultPath ?? 0;
    const closed = await vaultPathRefusal(deps, w, blocks, s.inputs, owners, new Date());
    if (closed) refuse(closed);
    vault = { policy: storedVaultPolicy(deps, w), blocks };
  }
  const change = s.changeAddress ?? (await freshChangeAddress(deps, walletId));
  const created = await deps.api.createMultisig(w.coin, spendRequest(params, w, xpubs, spend, change, owners, vault));

  const { tx, decoded } = decodeServiceTx(params, created.tx, refuse);
  // Exactly the inputs asked for, each signalling replacement when asked to (and only then).
  const asked = new Set(s.inputs.map(outpointKey));
  const spent = decoded.inputs.map((inp) => outpointKey({ txid: bytesToHex(inp.prevTxid), vout: inp.vout }));
  if (spent.length !== asked.size || new Set(spent).size !== spent.length || spent.some((k) => !asked.has(k))) {
    refuse(`the service's transaction spends ${spent.join(', ')}, not the inputs asked for (${[...asked].join(', ')})`);
  }
  // The version, nLockTime and every nSequence exactly as this kind asks (shared/coins/spend-locks.ts):
  // signatures commit to them, and a lock the service slipped in would make a payment that the node
  // refuses today and that pays again once its block comes.
  const locks = exactly(canonicalLocks(params, spendKindOf(s, vault), { vault: vault !== null, older: vault?.blocks ?? 0 }, s.replaceable), `the ${WHAT[s.kind]} asked for`);
  if (lockProblems(params, decoded, locks).length > 0) refuse(lockProblems(params, decoded, locks, await tipFor(deps, w.coin)).join('; '));
  if (s.replaces) {
    const says = (created.replaces ?? []).map(hexOf);
    if (!s.replaces.txid || !says.includes(hexOf(s.replaces.txid))) refuse(`the service does not say it replaces ${s.replaces.txid ?? 'the payment'} (it says: ${says.join(', ') || 'nothing'})`);
  }
  // What each input holds is read from its own transaction (its txid commits to it), not taken on
  // the service's word: where signatures do not commit to input amounts, a lie would hide a fee.
  const addresses = deps.store.addresses(walletId);
  const claims = decoded.inputs.map((inp, i) => {
    const owner = vault ? vaultInputOwner(inp, i, addresses, refuse) : inputOwner(inp, i, w, addresses, 'addresses', refuse);
    const txid = bytesToHex(inp.prevTxid);
    const at = outpointKey({ txid, vout: inp.vout });
    const out = proven.output(txid, inp.vout);
    if (!out) return refuse(`input ${i} spends ${at}, which its transaction does not have`);
    const mismatch = proven.mismatch(txid, inp.vout, { amount: out.value, script: addressToScript(params, owner.address), payee: owner.address });
    if (mismatch) refuse(`input ${i} as the service listed it: ${mismatch}`);
    // The service's statement of what the input spends must agree with the previous transaction.
    const stated = created.inputs?.[i];
    if (w.scriptType !== 'p2sh' && stated === undefined) refuse(`the service did not state what input ${i} spends`);
    if (stated !== undefined && (stated.amount !== out.value || hexOf(stated.txid) !== txid || stated.vout !== inp.vout)) {
      refuse(`the service says input ${i} spends ${shown(stated.amount)} at ${stated.txid}:${stated.vout}; the previous transaction says ${shown(out.value)} at ${at}`);
    }
    if (vault && stated !== undefined && (hexOf(stated.script) !== bytesToHex(owner.redeemScript) || stated.path?.index !== readUnsignedMiniscriptInput(inp, i)?.path)) {
      refuse(`the service's statement of input ${i} (its witness script or path) is not the transaction's`);
    }
    return { amount: out.value, path: addressPath(owner.change, owner.index) };
  });
  const totalInput = claims.reduce((sum, c) => sum + c.amount, 0n);
  if (created.total_input_value !== totalInput) refuse(`the service says the inputs bring ${shown(created.total_input_value)}, they bring ${shown(totalInput)}`);

  // The outputs first (which one differs says most), with the fee asked, or at a rate the fee the
  // transaction pays (inputs - outputs), which is then pinned from both sides: the size is the
  // desk's own estimate, and the fee must be the rate x that size (or at most the dust change above).
  const pays = totalInput - decoded.outputs.reduce((sum, o) => sum + o.value, 0n);
  const minersFee = 'rate' in s.fee ? pays : s.fee.amount;
  let expected;
  try {
    expected = expectedOutputs(params, { to, amount: s.amount, minersFee, ...(operatorFee ? { operatorFee } : {}), ...(recipients ? { recipients } : {}) }, totalInput, change.address);
  } catch (err) {
    if (err instanceof CoordinatorError) return refuse(err.message);
    throw err;
  }
  let verified: VerifiedPayment;
  try {
    verified = vault
      ? verifyUnsignedVaultPayment(params, vault.policy, vault.blocks, tx, claims, expected.outputs, expected.minersFee, 'proposal_refused', locks)
      : verifyUnsignedPayment(params, w.m, xpubs, tx, claims, expected.outputs, expected.minersFee, 'proposal_refused', scriptOptions(w), locks);
  } catch (err) {
    if (err instanceof PaymentCheckError) refuse(err.message);
    throw err;
  }
  const witness = vault ? vaultWitnessSize(params, vault.policy, vault.blocks) : undefined;
  const vsize = estimateVsize(params, decoded.inputs.map(() => (witness !== undefined ? { scriptType: 'witness' as const, witness } : { scriptType: w.scriptType, m: w.m, n: xpubs.length })), decoded.outputs.map((o) => o.script.length));
  if (created.vsize !== vsize) refuse(`the service says the transaction is ${created.vsize ?? 'of no stated size'} vbytes, this app estimates ${vsize}`);
  const stated = created.miners_fee ?? refuse('the service did not state the fee it built');
  if (stated !== pays) refuse(`the service says the fee is ${shown(stated)}, the transaction pays ${shown(pays)}`);
  await refuseAboveMaxFee(deps, w, params, pays, refuse);
  if ('rate' in s.fee) {
    const wrong = rateFeeRefusal(params, s.fee.rate, vsize, pays, decoded.outputs.some((o) => scriptToAddress(params, o.script) === change.address));
    if (wrong) refuse(wrong);
  }
  checkServiceHashes(verified, created.hashes, refuse);

  const id = randomUUID();
  const purpose = s.replaces ? (deps.store.labels.get(walletId, 'payment', s.replaces.id)?.label ?? '') : (s.purpose?.trim() ?? '');
  deps.store.transaction(() => {
    deps.store.insertPayment({
      id,
      walletId,
      to,
      amount: s.amount,
      minersFee: expected.minersFee,
      operatorFee: operatorFee?.amount ?? null,
      operatorAddress: operatorFee?.address ?? null,
      unsignedTx: tx,
      totalInputValue: totalInput,
      inputs: verified.inputs.map((i) => ({ inputIndex: i.index, amount: i.amount, change: i.change, index: i.addressIndex, redeemScript: i.redeemScript })),
      hashes: verified.inputs.flatMap((i) => i.publicKeys.map((publicKey) => ({ inputIndex: i.index, publicKey, hash: i.hash }))),
      kind: s.kind,
      replaces: s.replaces?.id ?? null,
      ...(recipients ? { recipients: recipients.map((r) => ({ address: r.to, amount: r.amount, label: r.label ?? '' })) } : {}),
    });
    // A replacement does what the payment it replaces did: it keeps its purpose.
    writePurpose(deps, walletId, id, purpose);
    const what = s.kind === 'payment' ? '' : ` (${s.kind}${s.replaces ? ` replacing payment ${s.replaces.id} (${s.replaces.txid ?? ''})` : ''})`;
    const paid = recipients ? `${coinAmount(params, s.amount)} to ${recipients.length} recipients (first ${to})` : `${coinAmount(params, s.amount)} to ${to}`;
    const rate = 'rate' in s.fee ? ` (${feeRateText(params, s.fee.rate)})` : '';
    deps.store.audit(
      deps.actor,
      'payment.propose',
      `payment ${id}${what}: ${paid}, miners fee ${coinAmount(params, expected.minersFee)}${rate}${s.replaceable ? ', replaceable' : ''}${operatorFee ? `, operator fee ${coinAmount(params, operatorFee.amount)} to ${operatorFee.address}` : ''}; hash ${paymentHash(tx)}`,
      null,
      { paymentId: id, walletId },
    );
  });
  return deps.store.payment(id)!;
}

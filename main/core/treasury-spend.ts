// A spend built with the service's treasury fields (docs/api-decisions.md, section 8): exact inputs
// (coin control), a fee rate or fee, BIP125 signalling. Replacements (replace-payment.ts) and
// children paying for their parent (cpfp.ts) go through here. Like proposePayment, nothing is taken
// on the service's word: every input's amount and script is read from its own previous transaction,
// outputs, fee and hashes are recomputed offline, and only then is the payment stored awaiting
// signatures.
import { randomUUID } from 'node:crypto';
import type { MultiSigPayment } from '../../shared/api/schemas.ts';
import { addressToScript, bytesToHex, equalBytes, type ChainParams } from '../../shared/coins/index.ts';
import { addressPath } from '../../shared/coins/multisig-address.ts';
import { PaymentCheckError } from '../../shared/files/errors.ts';
import { paymentHash } from '../../shared/files/signing-files.ts';
import { verifyUnsignedPayment, type VerifiedPayment } from '../../shared/files/unsigned-payment.ts';
import { CoordinatorError } from './errors.ts';
import { canonicalAddress, changeInFlight, decodeServiceTx, expectedOutputs, inputOwner, writePurpose } from './propose-payment.ts';
import type { Recipient } from './payment-batch.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import type { AddressRow, PaymentKind, PaymentRow, WalletRow } from './store/store.ts';
import { nextChangeAddress, requireWallet, walletParams, type CoreDeps } from './wallets.ts';
import { scriptOptions, walletAddress } from './wallet-script.ts';
import { coinAmount } from './units.ts';

/** BIP125: an input with a sequence below 0xfffffffe signals that its transaction may be replaced. */
export const REPLACEABLE_SEQUENCE = 0xfffffffd;

export interface Outpoint {
  txid: string;
  vout: number;
}

export const outpointKey = (o: Outpoint): string => `${o.txid.toLowerCase()}:${o.vout}`;

export interface TreasurySpend {
  to: string;
  amount: bigint;
  /** A batch's every recipient in output order (`to` and `amount` are then its first and its total). */
  recipients?: readonly Recipient[];
  operatorFee?: { address: string; amount: bigint };
  /** Exactly these outputs are spent (coin control). */
  inputs: readonly Outpoint[];
  /** One of the two: units per vbyte (the service computes the fee), or the fee itself. */
  fee: { rate: bigint } | { amount: bigint };
  replaceable: boolean;
  /** Receives the change; its script is the first source (docs/api-decisions.md). Default: a fresh change address. */
  changeAddress?: AddressRow;
  kind: PaymentKind;
  /** The payment whose transaction this one replaces (bump, cancel). */
  replaces?: PaymentRow;
}

/** The redeem_scripts entry of one of the wallet's addresses, as the service takes it. */
function source(params: ChainParams, w: WalletRow, xpubs: readonly string[], a: AddressRow): MultiSigPayment['redeem_scripts'][number] {
  return {
    public_keys: walletAddress(params, w, xpubs, a.change, a.index).publicKeys.map(bytesToHex),
    ...(w.scriptType !== 'p2sh' ? { script_type: w.scriptType } : {}),
    ...(w.sortKeys ? { sort_keys: true } : {}),
  };
}

/** The wallet's address whose script each outpoint pays, read from the outpoints' own transactions. */
export async function ownersOf(deps: CoreDeps, w: WalletRow, inputs: readonly Outpoint[]): Promise<{ proven: PreviousTransactions; owners: AddressRow[]; amounts: bigint[] }> {
  const params = walletParams(w);
  const proven = await PreviousTransactions.fetch(deps.api, w.coin, params, inputs.map((i) => i.txid));
  const addresses = deps.store.addresses(w.id);
  const owners: AddressRow[] = [];
  const amounts: bigint[] = [];
  for (const i of inputs) {
    const out = proven.output(i.txid, i.vout);
    if (!out) throw new CoordinatorError('proposal_refused', `${outpointKey(i)} is no output of its transaction`);
    const owner = addresses.find((a) => equalBytes(addressToScript(params, a.address), out.script));
    if (!owner) throw new CoordinatorError('proposal_refused', `${outpointKey(i)} does not pay one of this wallet's addresses`);
    owners.push(owner);
    amounts.push(out.value);
  }
  return { proven, owners, amounts };
}

/** The create request for a spend: change to the first source, then each input's own address once. */
export function spendRequest(params: ChainParams, w: WalletRow, xpubs: readonly string[], s: Omit<TreasurySpend, 'kind' | 'replaces' | 'changeAddress'>, change: AddressRow, owners: readonly AddressRow[]): MultiSigPayment {
  const rows = [change, ...owners.filter((a, i) => a.address !== change.address && owners.findIndex((b) => b.address === a.address) === i)];
  return {
    number_of_required_signatures: w.m,
    // A batch goes as `outputs`, every recipient kept (a bump of a batch must pay each one as before).
    ...(s.recipients && s.recipients.length > 1 ? { outputs: s.recipients.map((r) => ({ to: r.to, amount: r.amount })) } : { to: s.to, amount: s.amount }),
    ...(s.operatorFee ? { fee_address: s.operatorFee.address, fee_amount: s.operatorFee.amount } : {}),
    inputs: s.inputs.map((i) => ({ txid: i.txid.toLowerCase(), vout: i.vout })),
    ...('rate' in s.fee ? { fee_rate: s.fee.rate } : { miners_fee: s.fee.amount }),
    replaceable: s.replaceable,
    redeem_scripts: rows.map((a) => source(params, w, xpubs, a)),
  };
}

/** A fresh change address: not one that a payment in flight already pays. */
export function freshChangeAddress(deps: CoreDeps, walletId: string): Promise<AddressRow> {
  return nextChangeAddress(deps, walletId, changeInFlight(deps, walletId, walletParams(requireWallet(deps, walletId))));
}

/** Builds the spend through the service, checks it offline, stores it awaiting signatures. */
export async function proposeTreasurySpend(deps: CoreDeps, walletId: string, s: TreasurySpend): Promise<PaymentRow> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const refuse = (why: string): never => {
    throw new CoordinatorError('proposal_refused', `refusing the proposed ${s.kind === 'payment' ? 'payment' : s.kind}: ${why}`);
  };
  if (s.inputs.length === 0) refuse('it spends nothing');
  const to = canonicalAddress(params, s.to, 'to');
  const operatorFee = s.operatorFee ? { address: canonicalAddress(params, s.operatorFee.address, 'operator fee address'), amount: s.operatorFee.amount } : undefined;
  const xpubs = deps.store.cosigners(walletId).map((c) => c.xpub);
  let owned;
  try {
    owned = await ownersOf(deps, w, s.inputs);
  } catch (err) {
    if (err instanceof CoordinatorError) return refuse(err.message);
    throw err;
  }
  const { proven, owners } = owned;
  const change = s.changeAddress ?? (await freshChangeAddress(deps, walletId));
  const created = await deps.api.createMultisig(w.coin, spendRequest(params, w, xpubs, { ...s, to, ...(operatorFee ? { operatorFee } : {}) }, change, owners));

  const { tx, decoded } = decodeServiceTx(params, created.tx, refuse);
  // Exactly the inputs asked for, each signalling replacement when asked to (and only then).
  const asked = new Set(s.inputs.map(outpointKey));
  const spent = decoded.inputs.map((inp) => outpointKey({ txid: bytesToHex(inp.prevTxid), vout: inp.vout }));
  if (spent.length !== asked.size || spent.some((k) => !asked.has(k))) refuse(`the service's transaction spends ${spent.join(', ')}, not the inputs asked for (${[...asked].join(', ')})`);
  decoded.inputs.forEach((inp, i) => {
    if (s.replaceable ? inp.sequence > REPLACEABLE_SEQUENCE : inp.sequence <= REPLACEABLE_SEQUENCE) {
      refuse(`input ${i} has sequence 0x${inp.sequence.toString(16)}, ${s.replaceable ? 'which does not signal replacement (BIP125)' : 'which signals replacement, not asked for'}`);
    }
  });
  if (s.replaces) {
    if (!s.replaces.txid || !(created.replaces ?? []).includes(s.replaces.txid)) {
      refuse(`the service does not say it replaces ${s.replaces.txid ?? 'the payment'} (it says: ${(created.replaces ?? []).join(', ') || 'nothing'})`);
    }
  }
  const addresses = deps.store.addresses(walletId);
  const claims = decoded.inputs.map((inp, i) => {
    const owner = inputOwner(inp, i, w, addresses, 'addresses', refuse);
    const txid = bytesToHex(inp.prevTxid);
    const out = proven.output(txid, inp.vout);
    if (!out) return refuse(`input ${i} spends ${outpointKey({ txid, vout: inp.vout })}, which its transaction does not have`);
    const mismatch = proven.mismatch(txid, inp.vout, { amount: out.value, script: addressToScript(params, owner.address), payee: owner.address });
    if (mismatch) refuse(`input ${i}: ${mismatch}`);
    const stated = created.inputs?.[i];
    if (stated !== undefined && stated.amount !== out.value) refuse(`the service says input ${i} spends ${stated.amount}; its transaction says ${out.value}`);
    return { amount: out.value, path: addressPath(owner.change, owner.index) };
  });
  const totalInput = claims.reduce((sum, c) => sum + c.amount, 0n);
  if (created.total_input_value !== totalInput) refuse(`the service says the inputs bring ${created.total_input_value}, they bring ${totalInput}`);
  const minersFee = 'amount' in s.fee ? s.fee.amount : created.miners_fee;
  if (minersFee === undefined) return refuse('the service did not say what fee it built');
  if ('rate' in s.fee && created.vsize !== undefined && minersFee < s.fee.rate * BigInt(created.vsize)) {
    refuse(`the fee ${minersFee} is below ${s.fee.rate} units/vbyte of ${created.vsize} vbytes`);
  }
  const recipients = s.recipients && s.recipients.length > 1 ? s.recipients.map((r, i) => ({ ...r, to: canonicalAddress(params, r.to, `recipient ${i + 1}`) })) : undefined;
  const expected = expectedOutputs(params, { to, amount: s.amount, minersFee, ...(operatorFee ? { operatorFee } : {}), ...(recipients ? { recipients } : {}) }, totalInput, change.address);
  let verified: VerifiedPayment;
  try {
    verified = verifyUnsignedPayment(params, w.m, xpubs, tx, claims, expected.outputs, expected.minersFee, 'proposal_refused', scriptOptions(w));
  } catch (err) {
    if (err instanceof PaymentCheckError) refuse(err.message);
    throw err;
  }
  const want = new Map<string, string>();
  for (const i of verified.inputs) for (const k of i.publicKeys) want.set(`${i.index}:${bytesToHex(k)}`, bytesToHex(i.hash));
  if (created.hashes.length !== want.size) refuse(`the service gave ${created.hashes.length} hashes, this app computes ${want.size}`);
  for (const h of created.hashes) {
    if (want.get(`${h.input_index}:${h.public_key.toLowerCase()}`) !== h.hash_to_sign.toLowerCase()) refuse(`the hash of input ${h.input_index} for key ${h.public_key} is not the one this app computes`);
  }

  const id = randomUUID();
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
    if (s.replaces) writePurpose(deps, walletId, id, deps.store.labels.get(walletId, 'payment', s.replaces.id)?.label ?? '');
    const what = s.replaces ? ` replacing payment ${s.replaces.id} (${s.replaces.txid ?? ''})` : '';
    deps.store.audit(deps.actor, 'payment.propose', `payment ${id} (${s.kind}${what}): ${coinAmount(params, s.amount)} to ${to}, miners fee ${coinAmount(params, expected.minersFee)}${operatorFee ? `, operator fee ${coinAmount(params, operatorFee.amount)} to ${operatorFee.address}` : ''}; hash ${paymentHash(tx)}`, null, { paymentId: id, walletId });
  });
  return deps.store.payment(id)!;
}

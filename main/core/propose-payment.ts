// Proposing a payment from a wallet: the service builds it, the desk re-checks everything offline
// (outputs, amounts from the previous transactions, every hash) and stores it awaiting signatures.
import { randomUUID } from 'node:crypto';
import {
  addressToScript,
  bytesToHex,
  decodeTx,
  equalBytes,
  estimateVsize,
  hexToBytes,
  scriptToAddress,
  type ChainParams,
  type Tx,
  type TxInput,
} from '../../shared/coins/index.ts';
import { unitsToDecimal } from '../../shared/coins/units.ts';
import { addressPath } from '../../shared/coins/multisig-address.ts';
import { readUnsignedMultisigInput } from '../../shared/coins/unsigned-witness.ts';
import { PaymentCheckError } from '../../shared/files/errors.ts';
import { paymentHash } from '../../shared/files/signing-files.ts';
import { verifyUnsignedPayment, type ExpectedOutput, type VerifiedPayment } from '../../shared/files/unsigned-payment.ts';
import { CoordinatorError } from './errors.ts';
import { BatchRefusedError, checkRecipients, type Recipient } from './payment-batch.ts';
import { frozenOutpoints, pickOldestFirst, reservedOutpoints } from './coin-selection.ts';
import { DraftRefusedError, refuseDraft } from './payment-draft.ts';
import { chunks } from './wallet-funds.ts';
import { rateFeeRefusal, relaysReplacements } from './payment-fees.ts';
import { IN_FLIGHT } from './payments.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import type { AddressRow, PaymentRow, WalletRow } from './store/store.ts';
import { nextChangeAddress, requireWallet, walletParams, type CoreDeps } from './wallets.ts';
import { scriptOptions, walletAddress } from './wallet-script.ts';
import { coinAmount, feeRateText } from './units.ts';

export interface PaymentProposal {
  to: string;
  amount: bigint;
  minersFee: bigint;
  operatorFee?: { address: string; amount: bigint };
  /** What the payment is for: its 'payment' label, written with the payment (never one without the other). */
  purpose?: string;
  /**
   * Units per vbyte: the service computes the fee at this rate (then `minersFee` is ignored and the
   * fee the service built, checked by the desk, is stored).
   */
  feeRate?: bigint;
  /** BIP125: every input signals replaceability (only on coins whose row has bip125). */
  replaceable?: boolean;
  /** Coin control: exactly these outpoints ("txid:vout"); absent, the desk picks free ones oldest first. */
  inputs?: readonly string[];
  /** A batch: every recipient in output order (`to` and `amount` are then its first and its total). */
  recipients?: readonly Recipient[];
}

/** A batch proposal: `to` and `amount` as stored (the first recipient, the total). Pure. */
export function batchProposal(recipients: readonly Recipient[], minersFee: bigint, operatorFee?: { address: string; amount: bigint }): PaymentProposal {
  return { to: recipients[0]?.to ?? '', amount: recipients.reduce((s, r) => s + r.amount, 0n), minersFee, recipients, ...(operatorFee ? { operatorFee } : {}) };
}

/** The recipients of a proposal, in output order. Pure. */
export const recipientsOf = (p: PaymentProposal): readonly Recipient[] => p.recipients ?? [{ to: p.to, amount: p.amount }];

/** The address as this coin shows it (an accepted alternative prefix becomes the shown one). */
export function canonicalAddress(params: ChainParams, address: string, field: string): string {
  const shown = scriptToAddress(params, addressToScript(params, address.trim(), field));
  if (shown === null) throw new CoordinatorError('bad_address', `${field} ${address} has no address form on ${params.coin}`);
  return shown;
}

/** The outputs a proposal must produce, in the service's order (docs/api-decisions.md). Pure. */
export function expectedOutputs(params: ChainParams, p: PaymentProposal, totalInput: bigint, changeAddress: string): { outputs: ExpectedOutput[]; minersFee: bigint } {
  const outputs: ExpectedOutput[] = recipientsOf(p).map((r) => ({ address: r.to, amount: r.amount, purpose: 'payment' }));
  const fee = p.operatorFee?.amount ?? 0n;
  if (p.operatorFee) outputs.push({ address: p.operatorFee.address, amount: fee, purpose: 'operator_fee' });
  const change = totalInput - p.amount - fee - p.minersFee;
  if (change < 0n) throw new CoordinatorError('proposal_refused', `the inputs bring ${totalInput}, less than the ${p.amount + fee + p.minersFee} asked for`);
  // Change below dust goes to the miners (docs/api-decisions.md).
  if (change >= params.dustLimit) outputs.push({ address: changeAddress, amount: change, purpose: 'change' });
  return { outputs, minersFee: change >= params.dustLimit ? p.minersFee : p.minersFee + change };
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

/** Every recipient checked as the form checks one; all bad rows are named at once. */
function refuseBatch(params: ChainParams, recipients: readonly Recipient[]): void {
  const { refusals } = checkRecipients(
    params,
    recipients.map((r, i) => ({ line: i + 1, to: r.to, amount: unitsToDecimal(r.amount, params.decimals), label: r.label ?? '' })),
  );
  if (refusals.length > 0) throw new BatchRefusedError(refusals, params);
}

const outpoint = (txid: string, vout: number) => `${txid.toLowerCase()}:${vout}`;

/** Asks the service to build the payment, re-checks it offline, and stores it awaiting signatures. */
export async function proposePayment(deps: CoreDeps, walletId: string, input: PaymentProposal): Promise<PaymentRow> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const refuse = (why: string): never => {
    throw new CoordinatorError('proposal_refused', `refusing the proposed payment: ${why}`);
  };
  // The same checks the form runs as it is typed: refused here with the field they concern.
  if (input.recipients) refuseBatch(params, input.recipients);
  const [early] = refuseDraft(params, input.recipients ? { ...input, to: undefined } : input, null);
  if (early) throw new DraftRefusedError(early, params);
  const recipients = input.recipients?.map((r, i) => ({ ...r, to: canonicalAddress(params, r.to, `recipient ${i + 1}`) }));
  const proposal: PaymentProposal = {
    ...input,
    ...(recipients ? { recipients } : {}),
    to: recipients?.[0]?.to ?? canonicalAddress(params, input.to, 'to'),
    ...(input.operatorFee ? { operatorFee: { address: canonicalAddress(params, input.operatorFee.address, 'operator fee address'), amount: input.operatorFee.amount } } : {}),
  };
  const cosigners = deps.store.cosigners(walletId);
  const xpubs = cosigners.map((c) => c.xpub);
  const addresses = deps.store.addresses(walletId);
  const { utxos } = await deps.api.utxos(w.coin, addresses.map((a) => a.address));
  const scriptOwner = new Map(addresses.map((a) => [bytesToHex(addressToScript(params, a.address)), a]));
  const amounts = new Map<string, bigint>();
  const funded = new Set<string>();
  for (const u of utxos) {
    const owner = scriptOwner.get(u.script_pub_key.toLowerCase());
    if (!owner) continue;
    amounts.set(outpoint(u.txid, u.vout), u.amount);
    funded.add(owner.address);
  }
  const fundedRows = addresses.filter((a) => funded.has(a.address));
  const holds = [...amounts.values()].reduce((sum, a) => sum + a, 0n);
  const [short] = refuseDraft(params, input, holds);
  if (short) throw new DraftRefusedError(short, params);
  if (fundedRows.length === 0) refuse('the wallet has no unspent funds');
  // The first redeem script receives the change (docs/api-decisions.md): a fresh change address, unfunded.
  const change = await nextChangeAddress(deps, walletId, changeInFlight(deps, walletId, params));
  const chosen = await chooseInputs(deps, walletId, params, proposal, amounts, xpubs.length, change.address, refuse);
  const sourceRows = [change, ...fundedRows.filter((a) => a.address !== change.address)];
  const replaceable = proposal.replaceable === true && relaysReplacements(w.coin);
  const created = await deps.api.createMultisig(w.coin, {
    number_of_required_signatures: w.m,
    // A batch goes as `outputs`; one recipient keeps the original request, byte for byte.
    ...(recipients ? { outputs: recipients.map((r) => ({ to: r.to, amount: r.amount })) } : { amount: proposal.amount, to: proposal.to }),
    ...(proposal.feeRate !== undefined ? { fee_rate: proposal.feeRate } : { miners_fee: proposal.minersFee }),
    // Only where the coin's nodes relay replacements (its row's bip125); others never send it.
    ...(replaceable ? { replaceable: true } : {}),
    inputs: [...chosen],
    ...(proposal.operatorFee ? { fee_address: proposal.operatorFee.address, fee_amount: proposal.operatorFee.amount } : {}),
    // Keys in co-signer order; a segwit or sorted wallet says so (the original request otherwise).
    redeem_scripts: sourceRows.map((a) => ({
      public_keys: walletAddress(params, w, xpubs, a.change, a.index).publicKeys.map(bytesToHex),
      ...(w.scriptType !== 'p2sh' ? { script_type: w.scriptType } : {}),
      ...(w.sortKeys ? { sort_keys: true } : {}),
    })),
  });

  const { tx, decoded } = decodeServiceTx(params, created.tx, refuse);
  // Which of our addresses each input spends (its scriptSig is the redeem script), and how much.
  const prevTxid = (inp: (typeof decoded.inputs)[number]) => bytesToHex(inp.prevTxid);
  // What each input holds is read from its own transaction (its txid commits to it), not taken on
  // the service's word: where signatures do not commit to input amounts, a lie would hide a fee.
  let proven: PreviousTransactions;
  try {
    proven = await PreviousTransactions.fetch(deps.api, w.coin, params, decoded.inputs.map(prevTxid));
  } catch (err) {
    if (err instanceof CoordinatorError) refuse(err.message);
    throw err;
  }
  const claims = decoded.inputs.map((inp, i) => {
    const owner = inputOwner(inp, i, w, fundedRows, 'funded addresses', refuse);
    const spent = outpoint(prevTxid(inp), inp.vout);
    const amount = amounts.get(spent);
    if (amount === undefined) return refuse(`input ${i} spends ${spent}, which is not an unspent output of this wallet`);
    if (!chosen.has(spent)) return refuse(`input ${i} spends ${spent}, which the desk did not pick for this payment`);
    const mismatch = proven.mismatch(prevTxid(inp), inp.vout, { amount, script: addressToScript(params, owner.address), payee: owner.address });
    if (mismatch) refuse(`input ${i} as the service listed it: ${mismatch}`);
    // The service's statement of what the input spends must agree with the previous transaction.
    const stated = created.inputs?.[i];
    if (w.scriptType !== 'p2sh' && stated === undefined) refuse(`the service did not state what input ${i} spends`);
    if (stated !== undefined && (stated.amount !== amount || stated.txid.toLowerCase() !== prevTxid(inp) || stated.vout !== inp.vout)) {
      refuse(`the service says input ${i} spends ${stated.amount} at ${stated.txid}:${stated.vout}; the previous transaction says ${amount} at ${spent}`);
    }
    return { amount, path: addressPath(owner.change, owner.index) };
  });
  const totalInput = claims.reduce((s, c) => s + c.amount, 0n);
  if (created.total_input_value !== totalInput) refuse(`the service says the inputs bring ${created.total_input_value}, they bring ${totalInput}`);
  let minersFee = proposal.minersFee;
  if (proposal.feeRate !== undefined) {
    // The fee is the service's at the rate asked: stated, then checked against the transaction's size.
    const statedFee = created.miners_fee ?? refuse('the service did not state the fee it built at the rate asked');
    const vsize = estimateVsize(params, decoded.inputs.map(() => ({ scriptType: w.scriptType, m: w.m, n: xpubs.length })), decoded.outputs.map((o) => o.script.length));
    if (created.vsize !== vsize) refuse(`the service says the transaction is ${created.vsize} vbytes, this app estimates ${vsize}`);
    const outputsTotal = decoded.outputs.reduce((s, o) => s + o.value, 0n);
    if (statedFee !== totalInput - outputsTotal) refuse(`the service says the fee is ${statedFee}, the transaction pays ${totalInput - outputsTotal}`);
    const paysChange = decoded.outputs.some((o) => scriptToAddress(params, o.script) === change.address);
    const wrong = rateFeeRefusal(params, proposal.feeRate, vsize, statedFee, paysChange);
    if (wrong) refuse(wrong);
    minersFee = statedFee;
  }
  const expected = expectedOutputs(params, { ...proposal, minersFee }, totalInput, change.address);
  let verified: VerifiedPayment;
  try {
    verified = verifyUnsignedPayment(params, w.m, xpubs, tx, claims, expected.outputs, expected.minersFee, 'proposal_refused', scriptOptions(w));
  } catch (err) {
    if (err instanceof PaymentCheckError) refuse(err.message);
    throw err;
  }
  checkServiceHashes(verified, created.hashes, refuse);

  const id = randomUUID();
  const payment = {
    id,
    walletId,
    to: proposal.to,
    amount: proposal.amount,
    minersFee,
    operatorFee: proposal.operatorFee?.amount ?? null,
    operatorAddress: proposal.operatorFee?.address ?? null,
    unsignedTx: tx,
    totalInputValue: totalInput,
    inputs: verified.inputs.map((i) => ({ inputIndex: i.index, amount: i.amount, change: i.change, index: i.addressIndex, redeemScript: i.redeemScript })),
    hashes: verified.inputs.flatMap((i) => i.publicKeys.map((publicKey) => ({ inputIndex: i.index, publicKey, hash: i.hash }))),
    ...(recipients ? { recipients: recipients.map((r) => ({ address: r.to, amount: r.amount, label: r.label ?? '' })) } : {}),
  };
  const purpose = proposal.purpose?.trim() ?? '';
  deps.store.transaction(() => {
    deps.store.insertPayment(payment);
    deps.store.audit(deps.actor, 'payment.propose', `payment ${id}: ${recipients && recipients.length > 1 ? `${coinAmount(params, proposal.amount)} to ${recipients.length} recipients (first ${proposal.to})` : `${coinAmount(params, proposal.amount)} to ${proposal.to}`}, miners fee ${coinAmount(params, minersFee)}${proposal.feeRate !== undefined ? ` (${feeRateText(params, proposal.feeRate)})` : ''}${replaceable ? ', replaceable' : ''}${proposal.operatorFee ? `, operator fee ${coinAmount(params, proposal.operatorFee.amount)} to ${proposal.operatorFee.address}` : ''}; hash ${paymentHash(tx)}`, null, { paymentId: id });
    writePurpose(deps, walletId, id, purpose);
  });
  return deps.store.payment(id)!;
}

/**
 * The outpoints the payment spends: the treasurer's (refused when one is not the wallet's or an
 * unsent payment already spends it), or free ones picked oldest first (neither reserved nor frozen).
 */
async function chooseInputs(
  deps: CoreDeps,
  walletId: string,
  params: ChainParams,
  p: PaymentProposal,
  amounts: ReadonlyMap<string, bigint>,
  n: number,
  changeAddress: string,
  refuse: (why: string) => never,
): Promise<Set<string>> {
  const w = requireWallet(deps, walletId);
  const reserved = reservedOutpoints(deps.store, walletId, params);
  const held = (o: string) => {
    const by = reserved.get(o);
    return by === undefined ? null : `${o} is already spent by payment ${by} (${deps.store.payment(by)?.state.replace('_', ' ')}); cancel that payment to release it`;
  };
  if (p.inputs) {
    const picked = new Set(p.inputs.map((o) => o.trim().toLowerCase()));
    for (const o of picked) {
      if (!amounts.has(o)) refuse(`${o} is not an unspent output of this wallet`);
      const why = held(o);
      if (why) refuse(why);
    }
    return picked;
  }
  const frozen = frozenOutpoints(deps.store, walletId);
  // Age from the wallet's history: more confirmations is older; unconfirmed is the newest.
  const confirmations = new Map<string, number>();
  for (const batch of chunks(deps.store.addresses(walletId).map((a) => a.address))) {
    for (const t of (await deps.api.history(w.coin, batch, { limit: 1000 })).txs) if (t.txid) confirmations.set(t.txid.toLowerCase(), t.confirmations);
  }
  const free = [...amounts].filter(([o]) => !reserved.has(o) && !frozen.has(o)).map(([o, amount]) => ({ outpoint: o, amount, confirmations: confirmations.get(o.split(':')[0]!) ?? 0 }));
  const paid = recipientsOf(p).reduce((s, r) => s + r.amount, 0n) + (p.operatorFee?.amount ?? 0n);
  const outputScripts = [...recipientsOf(p).map((r) => addressToScript(params, r.to).length), ...(p.operatorFee ? [addressToScript(params, p.operatorFee.address).length] : []), addressToScript(params, changeAddress).length];
  const input = { scriptType: w.scriptType, m: w.m, n };
  const needs = (count: number) => paid + (p.feeRate !== undefined ? p.feeRate * BigInt(estimateVsize(params, new Array(count).fill(input), outputScripts)) : p.minersFee);
  const picked = pickOldestFirst(free, needs);
  if (!picked) {
    const sum = (os: Iterable<string>) => [...os].reduce((s, o) => s + (amounts.get(o) ?? 0n), 0n);
    const heldHere = [...amounts.keys()].filter((o) => reserved.has(o));
    const frozenHere = [...amounts.keys()].filter((o) => frozen.has(o) && !reserved.has(o));
    refuse(
      `the wallet's free outputs hold ${free.reduce((s, c) => s + c.amount, 0n)}, the payment needs about ${needs(Math.max(free.length, 1))}` +
        (heldHere.length ? `; ${heldHere.length} output(s) holding ${sum(heldHere)} are reserved by payments awaiting signatures or ready (${[...new Set(heldHere.map((o) => reserved.get(o)))].join(', ')})` : '') +
        (frozenHere.length ? `; ${frozenHere.length} frozen output(s) hold ${sum(frozenHere)}` : ''),
    );
  }
  return new Set(picked.map((c) => c.outpoint));
}

/** Every (input, key) of ours has exactly one hash from the service, equal to the one we computed. */
function checkServiceHashes(verified: VerifiedPayment, hashes: readonly { input_index: number; public_key: string; hash_to_sign: string }[], refuse: (why: string) => never): void {
  const want = new Map<string, string>();
  for (const i of verified.inputs) for (const k of i.publicKeys) want.set(`${i.index}:${bytesToHex(k)}`, bytesToHex(i.hash));
  const seen = new Set<string>();
  for (const h of hashes) {
    const key = `${h.input_index}:${h.public_key.toLowerCase()}`;
    const ours = want.get(key);
    if (ours === undefined) refuse(`the service gave a hash for input ${h.input_index} and key ${h.public_key}, which does not sign that input`);
    if (ours !== h.hash_to_sign.toLowerCase().replace(/^0x/, '')) refuse(`the hash of input ${h.input_index} for key ${h.public_key} is ${h.hash_to_sign}, this app computes ${ours}`);
    seen.add(key);
  }
  for (const key of want.keys()) if (!seen.has(key)) refuse(`the service gave no hash for input/key ${key}`);
}

// ---- lifecycle ---------------------------------------------------------------------------------

/** The service's unsigned transaction, decoded; a refusal in words when it is not a transaction. */
export function decodeServiceTx(params: ChainParams, hex: string, refuse: (why: string) => never): { tx: Uint8Array; decoded: Tx } {
  try {
    const tx = hexToBytes(hex);
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

/** A payment's purpose, its 'payment' label: call inside the transaction that stores the payment. */
export function writePurpose(deps: CoreDeps, walletId: string, paymentId: string, purpose: string): void {
  if (purpose === '') return;
  deps.store.labels.put(walletId, { type: 'payment', ref: paymentId, label: purpose, spendable: null }, new Date().toISOString());
  deps.store.audit(deps.actor, 'label.set', `payment ${paymentId}: "${purpose}"`, null, { walletId, paymentId });
}

// Signing-request files as the treasurer writes them from a stored payment (docs/file-formats.md),
// and as a co-signer opens them: the offline check itself is shared/files/signing-request.ts.
import { bytesToHex, chainParams, decodeTx, scriptToAddress } from '../../../shared/coins/index.ts';
import { REPLACEABLE_SEQUENCE } from './spend.ts';
import { addressPath } from '../../../shared/coins/multisig-address.ts';
import { PaymentCheckError } from '../../../shared/files/errors.ts';
import { readSigningRequest, type OpenedRequest } from '../../../shared/files/signing-request.ts';
import { paymentHash, SIGNING_REQUEST_FORMAT, SIGNING_REQUEST_VERSION, type SigningRequestV2 } from '../../../shared/files/signing-files.ts';
import { CoordinatorError } from '../errors.ts';
import { fileSafe } from '../file-names.ts';
import { requirePayment } from './payments.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import { requireWallet, type CoreDeps } from '../wallets/wallets.ts';
import { paymentVaultPath } from './vault-inputs.ts';

/**
 * The request file of a payment awaiting signatures, as JSON text (version 2). Each input names the
 * transaction it spends from, carried once in the file's table (fetched and checked here), so
 * co-signers check amounts offline however many inputs spend from one transaction.
 */
export async function writeSigningRequest(deps: Pick<CoreDeps, 'store' | 'api'>, paymentId: string): Promise<string> {
  const { store } = deps;
  const p = requirePayment({ store }, paymentId);
  if (p.state !== 'awaiting_signatures') throw new CoordinatorError('stale', `payment ${paymentId} is ${p.state}: it needs no more signatures`);
  const w = requireWallet({ store }, p.walletId);
  const params = chainParams(w.coin, w.network);
  const inputs = store.paymentInputs(paymentId);
  // What the payment is for, so a co-signer reads it beside what it pays.
  const purpose = store.labels.get(w.id, 'payment', p.id)?.label.trim() ?? '';
  const hashes = store.paymentHashes(paymentId);
  const spends = decodeTx(p.unsignedTx, params).inputs.map((i) => bytesToHex(i.prevTxid));
  // A vault: the path it is spent on, by when it opens (read back from the transaction itself).
  const vaultPath = paymentVaultPath({ store }, w, p);
  const previous = await PreviousTransactions.fetch(deps.api, w.coin, params, spends);
  const asked = [
    ...store.paymentRecipients(p.id).map((r) => ({ address: r.address, amount: r.amount.toString(), purpose: 'payment' as const })),
    ...(p.operatorAddress && p.operatorFee !== null ? [{ address: p.operatorAddress, amount: p.operatorFee.toString(), purpose: 'operator_fee' as const }] : []),
  ];
  // Outputs past the asked ones were checked at proposal to be change to one of our addresses.
  const own = new Map(store.addresses(w.id).map((a) => [a.address, a]));
  const change = decodeTx(p.unsignedTx, params).outputs.slice(asked.length).map((o) => {
    const address = scriptToAddress(params, o.script) ?? '';
    const row = own.get(address);
    if (!row) throw new CoordinatorError('internal', `payment ${paymentId} pays ${address}, which is not a change address of the wallet`);
    return { address, amount: o.value.toString(), purpose: 'change' as const, path: addressPath(row.change, row.index) };
  });
  const request: SigningRequestV2 = {
    format: SIGNING_REQUEST_FORMAT,
    version: SIGNING_REQUEST_VERSION,
    request_id: p.id,
    payment_hash: paymentHash(p.unsignedTx),
    coin: w.coin,
    network: w.network,
    wallet: {
      name: w.name,
      m: w.m,
      cosigners: store.cosigners(w.id).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivation_path: c.derivationPath })),
      // Written only when not the original P2SH/co-signer order, so older readers' files stay as they were.
      ...(w.scriptType !== 'p2sh' ? { script_type: w.scriptType } : {}),
      ...(w.sortKeys ? { sort_keys: true } : {}),
      ...(w.vaultTemplate ? { vault_template: w.vaultTemplate } : {}),
    },
    ...(vaultPath !== undefined ? { vault_path: vaultPath } : {}),
    // Whether it signals replacement, read from the transaction the desk pinned exactly at proposal
    // (spend.ts canonicalLocks): the co-signer then accepts that nSequence only. Not on a recovery path (its older()).
    ...(vaultPath === undefined || vaultPath === 0 ? { replaceable: decodeTx(p.unsignedTx, params).inputs.every((i) => i.sequence === REPLACEABLE_SEQUENCE) } : {}),
    unsigned_tx: bytesToHex(p.unsignedTx),
    inputs: inputs.map((i) => ({
      index: i.inputIndex,
      amount: i.amount.toString(),
      path: addressPath(i.change, i.index),
      redeem_script: bytesToHex(i.redeemScript),
      ...(w.scriptType !== 'p2sh' ? { script_type: w.scriptType, witness_script: bytesToHex(i.redeemScript) } : {}),
      hash: bytesToHex(hashes.find((h) => h.inputIndex === i.inputIndex)!.hash),
      previous_txid: spends[i.inputIndex]!.toLowerCase(),
    })),
    outputs: [...asked, ...change],
    miners_fee: (p.totalInputValue - [...asked, ...change].reduce((s, o) => s + BigInt(o.amount), 0n)).toString(),
    created_at: p.createdAt,
    ...(purpose ? { label: purpose } : {}),
    // Last: the bulk of a large request, each transaction once.
    previous_transactions: Object.fromEntries([...new Set(spends.map((t) => t.toLowerCase()))].map((t) => [t, bytesToHex(previous.raw(t))])),
  };
  return JSON.stringify(request, null, 2);
}

/** The request file of a payment, named for its wallet and payment. */
export async function exportSigningRequest(deps: Pick<CoreDeps, 'store' | 'api'>, paymentId: string): Promise<{ fileName: string; text: string }> {
  const p = requirePayment(deps, paymentId);
  const w = requireWallet(deps, p.walletId);
  return { fileName: `signing-request-${fileSafe(w.name)}-${p.id.slice(0, 8)}.json`, text: await writeSigningRequest(deps, paymentId) };
}

/** readSigningRequest, its refusal as the desk's CoordinatorError ('malformed' or 'tampered'). */
export function openSigningRequest(text: string): OpenedRequest {
  try {
    return readSigningRequest(text);
  } catch (err) {
    if (err instanceof PaymentCheckError) throw new CoordinatorError(err.code, err.message);
    throw err;
  }
}

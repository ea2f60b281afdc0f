// Signing-request files: written by the treasurer from a stored payment, read and verified offline
// by a co-signer (docs/file-formats.md).
import { bytesToHex, chainParams, decodeTx, hash160, hexToBytes, p2shScript, parseXpub, scriptToAddress, type ChainParams } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';
import { paymentHash, requirePayment } from '../payments.ts';
import { PreviousTransactions, readPrevious, spendMismatch } from '../previous-transactions.ts';
import { addressPath, deriveAddress, requireWallet, type CoreDeps } from '../wallets.ts';
import { parseFile, SIGNING_REQUEST_FORMAT, SigningRequestV1 } from '../../../shared/files/signing-files.ts';
import { verifyUnsignedPayment, type ExpectedOutput, type VerifiedPayment } from './verify.ts';

/**
 * The request file of a payment awaiting signatures, as JSON text. Each input carries the
 * transaction it spends from (fetched and checked here), so co-signers check amounts offline.
 */
export async function writeSigningRequest(deps: Pick<CoreDeps, 'store' | 'api'>, paymentId: string): Promise<string> {
  const { store } = deps;
  const p = requirePayment({ store }, paymentId);
  if (p.state !== 'awaiting_signatures') throw new CoordinatorError('stale', `payment ${paymentId} is ${p.state}: it needs no more signatures`);
  const w = requireWallet({ store }, p.walletId);
  const params = chainParams(w.coin, w.network);
  const inputs = store.paymentInputs(paymentId);
  const hashes = store.paymentHashes(paymentId);
  const spends = decodeTx(p.unsignedTx, params).inputs.map((i) => bytesToHex(i.prevTxid));
  const previous = await PreviousTransactions.fetch(deps.api, w.coin, params, spends);
  const asked = [
    { address: p.to, amount: p.amount.toString(), purpose: 'payment' as const },
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
  const request: SigningRequestV1 = {
    format: SIGNING_REQUEST_FORMAT,
    version: 1,
    request_id: p.id,
    payment_hash: paymentHash(p.unsignedTx),
    coin: w.coin,
    network: w.network,
    wallet: {
      name: w.name,
      m: w.m,
      cosigners: store.cosigners(w.id).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivation_path: c.derivationPath })),
    },
    unsigned_tx: bytesToHex(p.unsignedTx),
    inputs: inputs.map((i) => ({
      index: i.inputIndex,
      amount: i.amount.toString(),
      path: addressPath(i.change, i.index),
      redeem_script: bytesToHex(i.redeemScript),
      hash: bytesToHex(hashes.find((h) => h.inputIndex === i.inputIndex)!.hash),
      previous_tx: bytesToHex(previous.raw(spends[i.inputIndex]!)),
    })),
    outputs: [...asked, ...change],
    miners_fee: (p.totalInputValue - [...asked, ...change].reduce((s, o) => s + BigInt(o.amount), 0n)).toString(),
    created_at: p.createdAt,
  };
  return JSON.stringify(request, null, 2);
}

export interface OpenedRequest {
  request: SigningRequestV1;
  params: ChainParams;
  verified: VerifiedPayment;
  outputs: ExpectedOutput[];
}

/**
 * Parses and verifies a request offline: decodes the transaction, re-derives every redeem script
 * and change address from the xpubs, recomputes every hash, and checks the outputs are exactly
 * those listed. Throws CoordinatorError 'malformed' or 'tampered' saying why.
 */
export function openSigningRequest(text: string): OpenedRequest {
  const parsed = parseFile(SigningRequestV1, 'signing-request file', text);
  if (!parsed.ok) throw new CoordinatorError('malformed', parsed.message);
  const r = parsed.value;
  const tampered = (why: string): never => {
    throw new CoordinatorError('tampered', `the signing request ${r.request_id} was altered or is inconsistent: ${why}`);
  };
  try {
    const params = chainParams(r.coin, r.network);
    r.wallet.cosigners.forEach((c) => parseXpub(params, c.xpub, `co-signer ${c.name}'s xpub`));
    if (r.wallet.m > r.wallet.cosigners.length) tampered(`M=${r.wallet.m} is more than the ${r.wallet.cosigners.length} co-signers`);
    const tx = hexToBytes(r.unsigned_tx);
    if (paymentHash(tx) !== r.payment_hash) tampered('its payment_hash is not the hash of its transaction');
    r.inputs.forEach((inp, i) => {
      if (inp.index !== i) tampered(`inputs are not listed in order (entry ${i} says ${inp.index})`);
    });
    const xpubs = r.wallet.cosigners.map((c) => c.xpub);
    const outputs = r.outputs.map((o): ExpectedOutput => {
      if (o.purpose === 'change') {
        const [c, i] = (o.path ?? '').split('/');
        if (o.path === undefined) tampered(`the change output to ${o.address} has no path`);
        const derived = deriveAddress(params, r.wallet.m, xpubs, c === '1', Number(i)).address;
        if (derived !== o.address) tampered(`the change output pays ${o.address}, but the wallet's address at ${o.path} is ${derived}`);
      }
      return { address: o.address, amount: BigInt(o.amount), purpose: o.purpose };
    });
    checkPreviousTransactions(r, params, tx, tampered);
    const claims = r.inputs.map((i) => ({ amount: BigInt(i.amount), path: i.path }));
    const verified = verifyUnsignedPayment(params, r.wallet.m, xpubs, tx, claims, outputs, BigInt(r.miners_fee), 'tampered');
    verified.inputs.forEach((v, i) => {
      const inp = r.inputs[i]!;
      if (bytesToHex(v.redeemScript) !== inp.redeem_script) tampered(`input ${i}'s redeem script is not the wallet's at ${inp.path}`);
      if (bytesToHex(v.hash) !== inp.hash) tampered(`input ${i}'s hash is ${inp.hash}, the transaction gives ${bytesToHex(v.hash)}`);
    });
    return { request: r, params, verified, outputs };
  } catch (err) {
    if (err instanceof CoordinatorError) {
      if (err.code === 'tampered') throw err;
      return tampered(err.message);
    }
    return tampered(err instanceof Error ? err.message : String(err));
  }
}

/**
 * Each input's amount against the transaction it spends from, carried in the request. Required
 * where signatures do not commit to input amounts (legacy digests, with or without fork id): there a false amount would
 * hide a miners' fee from the co-signer; elsewhere a false amount only makes signatures invalid.
 */
function checkPreviousTransactions(r: SigningRequestV1, params: ChainParams, tx: Uint8Array, tampered: (why: string) => never): void {
  const spends = decodeTx(tx, params).inputs;
  r.inputs.forEach((inp, i) => {
    const spend = spends[i];
    if (!spend) return; // the input count is checked with the transaction
    const txid = bytesToHex(spend.prevTxid);
    if (inp.previous_tx === undefined) {
      if (params.sighashAlgorithm === 'legacy' || params.sighashAlgorithm === 'legacy-forkid') tampered(`input ${i} carries no previous transaction: on ${params.coin} signatures do not commit to input amounts, so its amount ${inp.amount} cannot be checked offline`);
      return;
    }
    const read = readPrevious(hexToBytes(inp.previous_tx), params);
    if (read.txid !== txid) tampered(`input ${i}'s previous transaction hashes to ${read.txid}, but the input spends ${txid}`);
    const mismatch = spendMismatch(read.output(spend.vout), txid, spend.vout, {
      amount: BigInt(inp.amount),
      script: p2shScript(hash160(hexToBytes(inp.redeem_script))),
      payee: `the wallet's address at ${inp.path}`,
    });
    if (mismatch) tampered(`input ${i}: ${mismatch}`);
  });
}

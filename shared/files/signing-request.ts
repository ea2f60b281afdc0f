// Reading a signing-request file offline, as a co-signer does before signing (docs/file-formats.md):
// nothing here asks the service or the desk's store; every claim is checked from the file itself.
import { coinAmount } from '../coins/units.ts';
import { bytesToHex, chainParams, decodeTx, hash160, hexToBytes, p2shScript, parseXpub, type ChainParams } from '../coins/index.ts';
import { deriveAddress } from '../coins/multisig-address.ts';
import { isSegwitScriptType, type MultisigScriptOptions } from '../coins/multisig-script.ts';
import { PaymentCheckError } from './errors.ts';
import { readPrevious, spendMismatch } from './previous-transaction.ts';
import { parseFile, paymentHash, SigningRequest } from './signing-files.ts';
import { verifyUnsignedPayment, verifyUnsignedVaultPayment, type ExpectedOutput, type VerifiedPayment } from './unsigned-payment.ts';
import { vaultAddress, type VaultPolicy } from '../coins/vault-policy.ts';
import { acceptedLocks, lockWords } from '../coins/spend-locks.ts';

export interface OpenedRequest {
  /** As the file has it, version 1 or 2. */
  request: SigningRequest;
  params: ChainParams;
  verified: VerifiedPayment;
  outputs: ExpectedOutput[];
  /** Every lock the transaction carries, in words (a recovery path's older(); any other is refused): shown before signing. */
  locks: string[];
}

/**
 * Parses and verifies a request offline: decodes the transaction, re-derives every redeem script
 * and change address from the xpubs, recomputes every hash, checks the outputs are exactly
 * those listed and the version, nLockTime and nSequence values are those of a spend of its kind
 * (shared/coins/spend-locks.ts; any other lock refused, named in words). Throws PaymentCheckError 'malformed' or 'tampered' saying why.
 */
export function readSigningRequest(text: string): OpenedRequest {
  const parsed = parseFile(SigningRequest, 'signing-request file', text, 'signing-request');
  if (!parsed.ok) throw new PaymentCheckError('malformed', parsed.message);
  const r = parsed.value;
  const tampered = (why: string): never => {
    throw new PaymentCheckError('tampered', `the signing request ${r.request_id} was altered or is inconsistent: ${why}`);
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
    const script = requestScript(r);
    const vault = requestVault(r);
    if ((vault === null) !== (r.vault_path === undefined)) tampered('a vault payment names both its vault template and its path, this request only one of them');
    // The wallet's script at a path below the xpubs: a vault's from its template, else M of N.
    const at = (path: string) => {
      const [c, i] = path.split('/');
      return vault ? vaultAddress(params, vault, c === '1', Number(i)) : deriveAddress(params, r.wallet.m, xpubs, c === '1', Number(i), script);
    };
    const outputs = r.outputs.map((o): ExpectedOutput => {
      if (o.purpose === 'change') {
        if (o.path === undefined) tampered(`the change output to ${o.address} has no path`);
        const derived = at(o.path!).address;
        if (derived !== o.address) tampered(`the change output pays ${o.address}, but the wallet's address at ${o.path} is ${derived}`);
      }
      return { address: o.address, amount: BigInt(o.amount), purpose: o.purpose };
    });
    checkPreviousTransactions(r, params, tx, script, at, tampered);
    const claims = r.inputs.map((i) => ({ amount: BigInt(i.amount), path: i.path }));
    // Exactly the nSequence the request states (final or replaceable); a file without the field accepts either.
    const shape = { vault: vault !== null, older: r.vault_path ?? 0 };
    const locks = acceptedLocks(params, shape, r.replaceable);
    const verified = vault
      ? verifyUnsignedVaultPayment(params, vault, r.vault_path!, tx, claims, outputs, BigInt(r.miners_fee), 'tampered', locks)
      : verifyUnsignedPayment(params, r.wallet.m, xpubs, tx, claims, outputs, BigInt(r.miners_fee), 'tampered', script, locks);
    verified.inputs.forEach((v, i) => {
      const inp = r.inputs[i]!;
      if ((inp.script_type ?? 'p2sh') !== script.scriptType) tampered(`input ${i} says ${inp.script_type ?? 'p2sh'}, the wallet is ${script.scriptType}`);
      if (isSegwitScriptType(script.scriptType) && inp.witness_script !== bytesToHex(v.redeemScript)) tampered(`input ${i}'s witness script is not the wallet's at ${inp.path}`);
      if (bytesToHex(v.redeemScript) !== inp.redeem_script) tampered(`input ${i}'s redeem script is not the wallet's at ${inp.path}`);
      if (bytesToHex(v.hash) !== inp.hash) tampered(`input ${i}'s hash is ${inp.hash}, the transaction gives ${bytesToHex(v.hash)}`);
    });
    return { request: r, params, verified, outputs, locks: lockWords(params, decodeTx(tx, params)) };
  } catch (err) {
    if (err instanceof PaymentCheckError) {
      if (err.code === 'tampered') throw err;
      return tampered(err.message);
    }
    return tampered(err instanceof Error ? err.message : String(err));
  }
}

/** A vault request's policy: its template over the co-signers' keys in order; null for M of N. */
function requestVault(r: SigningRequest): VaultPolicy | null {
  if (r.wallet.vault_template === undefined) return null;
  return { template: r.wallet.vault_template, keys: r.wallet.cosigners.map((c) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivation_path })) };
}

/** The wallet's script type and key order as the request states them (absent: P2SH, keys as given). */
function requestScript(r: SigningRequest): Required<MultisigScriptOptions> {
  return { scriptType: r.wallet.script_type ?? 'p2sh', sortKeys: r.wallet.sort_keys === true };
}

/**
 * Each input's amount against the transaction it spends from, carried in the request. Required
 * where signatures do not commit to input amounts (legacy digests, with or without fork id): there a false amount would
 * hide a miners' fee from the co-signer; elsewhere a false amount only makes signatures invalid.
 * Version 2 carries every one, each once (previousOfInputs).
 */
function checkPreviousTransactions(
  r: SigningRequest,
  params: ChainParams,
  tx: Uint8Array,
  script: Required<MultisigScriptOptions>,
  at: (path: string) => { scriptPubKey: Uint8Array },
  tampered: (why: string) => never,
): void {
  const spends = decodeTx(tx, params).inputs;
  const previous = previousOfInputs(r, params, spends.map((s) => bytesToHex(s.prevTxid)), tampered);
  r.inputs.forEach((inp, i) => {
    const spend = spends[i];
    if (!spend) return; // the input count is checked with the transaction
    const txid = bytesToHex(spend.prevTxid);
    const read = previous[i];
    if (read === undefined) {
      if (params.sighashAlgorithm === 'legacy' || params.sighashAlgorithm === 'legacy-forkid') tampered(`input ${i} carries no previous transaction: on ${params.coin} signatures do not commit to input amounts, so its amount ${coinAmount(params, BigInt(inp.amount))} cannot be checked offline`);
      return;
    }
    if (read.txid !== txid) tampered(`input ${i}'s previous transaction hashes to ${read.txid}, but the input spends ${txid}`);
    const mismatch = spendMismatch(params, read.output(spend.vout), txid, spend.vout, {
      amount: BigInt(inp.amount),
      // P2SH: the output of the file's redeem script, as always; other types: the output the wallet's
      // script at this path pays to, in the wallet's type.
      script:
        script.scriptType === 'p2sh' && !script.sortKeys
          ? p2shScript(hash160(hexToBytes(inp.redeem_script)))
          : at(inp.path).scriptPubKey,
      payee: `the wallet's address at ${inp.path}`,
    });
    if (mismatch) tampered(`input ${i}: ${mismatch}`);
  });
}

type ReadPrevious = ReturnType<typeof readPrevious>;

/**
 * The previous transaction of each input, read (undefined where a version 1 file carries none).
 * Version 2: every transaction of the table hashes to the txid it is listed under, each input
 * names the txid it spends and the table has it, and the table holds nothing no input spends.
 */
function previousOfInputs(r: SigningRequest, params: ChainParams, spent: readonly string[], tampered: (why: string) => never): (ReadPrevious | undefined)[] {
  if (r.version === 1) return r.inputs.map((inp) => (inp.previous_tx === undefined ? undefined : readPrevious(hexToBytes(inp.previous_tx), params)));
  const table = new Map<string, ReadPrevious>();
  for (const [txid, hex] of Object.entries(r.previous_transactions)) {
    const read = readPrevious(hexToBytes(hex), params);
    if (read.txid !== txid) tampered(`the previous transaction listed as ${txid} is another transaction (its bytes hash to ${read.txid})`);
    table.set(txid, read);
  }
  const used = new Set<string>();
  const previous = r.inputs.map((inp, i) => {
    if (spent[i] !== undefined && inp.previous_txid !== spent[i]) tampered(`input ${i} names previous transaction ${inp.previous_txid}, but the transaction's input ${i} spends ${spent[i]}`);
    const read = table.get(inp.previous_txid) ?? tampered(`input ${i} spends from ${inp.previous_txid}, which is not among the request's previous transactions`);
    used.add(inp.previous_txid);
    return read;
  });
  const extra = [...table.keys()].find((txid) => !used.has(txid));
  if (extra !== undefined) tampered(`it carries previous transaction ${extra}, which no input spends`);
  return previous;
}

// A co-signer's Ledger in the desk: register the wallet (Bitcoin app >= 2.1) and keep the HMAC,
// show an address on the device and compare it with ours, and sign a payment: as a PSBT on the
// Bitcoin app >= 2.1, input by input on the legacy-protocol apps (the Zcash app among them, which
// is matched to its co-signer by key rather than master fingerprint). A miniscript vault (issue 27)
// is registered as its BIP388 policy and signed on the Bitcoin app >= 2.1 only, by a device
// holding a key of the path the payment is spent on. Every signature from the device
// goes through the same verification as a signature file (signature-import.ts) before it is stored.
import { AppClient, type PsbtV2 } from 'ledger-bitcoin';
import { bytesToHex, type ChainParams, type CoinName } from '../../../shared/coins/index.ts';
import { walletAddress } from '../wallets/script.ts';
import { CoordinatorError } from '../errors.ts';
import { checkCosignerSignature, refused, storeSignatures, type CheckedSignature, type FileResult } from '../payments/signature-import.ts';
import { vaultPaymentInputs } from '../payments/vault-inputs.ts';
import { storedVaultPolicy } from '../vaults/vaults.ts';
import { progress, requirePayment } from '../payments/payments.ts';
import type { CosignerRow, WalletRow } from '../store/store.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { derivesAccountKeysOnly, requireApp, type OpenApp } from './app.ts';
import { LedgerError, type LedgerContext } from './errors.ts';
import { canSignOnLedger, legacySegwitProblem, signLegacy } from './legacy-sign.ts';
import { ledgerPayment, type LedgerPayment } from './payment-inputs.ts';
import { zcashAccountPathProblem } from './paths.ts';
import { policyOf, positionsOf, registrationFor, walletPolicy } from './policy.ts';
import { multisigOrigins, paymentPsbt } from './psbt.ts';
import { positionsOnPath, vaultOrigins } from './vault-signing.ts';
import { withLedger, type LedgerConnector, type Transport } from './transport.ts';
import { legacyMasterFingerprint, zcashKeyHolder } from './xpub.ts';
import { zcashPreflight } from './zcash-sign.ts';
import { plural } from '../../../shared/api/words.ts';

export interface Registration {
  position: number;
  cosigner: string;
  policy_id: string;
  registered_at: string;
}

/** The co-signer(s) this device is, by its master fingerprint. */
function devicePositions(cosigners: readonly CosignerRow[], fingerprint: string, w: WalletRow): number[] {
  const positions = positionsOf(cosigners, fingerprint);
  if (positions.length === 0) {
    throw new LedgerError('ledger_wrong_key', `this Ledger (master key ${fingerprint}) holds none of the keys of wallet "${w.name}": connect the co-signer's own device`);
  }
  return positions;
}

async function deviceFingerprint(transport: Transport, app: OpenApp, coin: CoinName): Promise<string> {
  return app.protocol === 'psbt' ? new AppClient(transport).getMasterFingerprint() : legacyMasterFingerprint(transport, coin);
}

/** REGISTER_WALLET on an open Bitcoin app (the person checks every key on its screen); stores the HMAC. */
async function register(deps: CoreDeps, client: AppClient, w: WalletRow, cosigners: readonly CosignerRow[], position: number, fingerprint: string): Promise<Registration> {
  const parts = policyOf(w, cosigners);
  const policy = walletPolicy(parts);
  const [id, hmac] = await client.registerWallet(policy);
  if (!policy.getId().equals(id)) throw new LedgerError('ledger_failed', 'the Ledger registered another wallet policy than the one sent: nothing was stored');
  if (hmac.length !== 32) throw new LedgerError('ledger_failed', `the Ledger returned a ${hmac.length}-byte HMAC instead of 32: nothing was stored`);
  const registeredAt = new Date().toISOString();
  deps.store.transaction(() => {
    deps.store.ledger.put(w.id, { position, policyName: parts.name, descriptorTemplate: parts.descriptorTemplate, keyInfos: parts.keyInfos, policyId: new Uint8Array(id), hmac: new Uint8Array(hmac), registeredAt });
    deps.store.audit(deps.actor, 'ledger.register', `wallet ${w.id} registered on ${cosigners[position]!.name}'s Ledger (${fingerprint}) as "${parts.name}", policy ${bytesToHex(id)}`, `Ledger ${fingerprint}`, { walletId: w.id, cosigner: cosigners[position]!.name });
  });
  return { position, cosigner: cosigners[position]!.name, policy_id: bytesToHex(id), registered_at: registeredAt };
}

/** Registers the wallet's policy on the device and stores the HMAC (again, if it was registered before). */
export async function registerWalletOnLedger(deps: CoreDeps, connector: LedgerConnector, walletId: string): Promise<Registration> {
  const w = requireWallet(deps, walletId);
  const cosigners = deps.store.cosigners(walletId);
  return withLedger(connector, { doing: `registering wallet "${w.name}"` }, async (transport, ctx) => {
    await requireApp(transport, w.coin, w.network, ctx, 'psbt');
    const client = new AppClient(transport);
    const fingerprint = await client.getMasterFingerprint();
    return register(deps, client, w, cosigners, devicePositions(cosigners, fingerprint, w)[0]!, fingerprint);
  });
}

/** Shows the wallet's address at (change, index) on the device; refuses loudly if it differs from ours. */
export async function showAddressOnLedger(deps: CoreDeps, connector: LedgerConnector, walletId: string, change: boolean, index: number): Promise<{ address: string; path: string; cosigner: string }> {
  const w = requireWallet(deps, walletId);
  const cosigners = deps.store.cosigners(walletId);
  const ours = walletAddress(walletParams(w), w, cosigners.map((c) => c.xpub), change, index);
  return withLedger(connector, { doing: 'showing the address on the device' }, async (transport, ctx) => {
    await requireApp(transport, w.coin, w.network, ctx, 'psbt');
    const client = new AppClient(transport);
    const fingerprint = await client.getMasterFingerprint();
    const rows = deps.store.ledger.list(walletId);
    const positions = devicePositions(cosigners, fingerprint, w);
    const position = positions.find((p) => rows.some((r) => r.position === p)) ?? positions[0]!;
    const { policy, hmac } = registrationFor(w, cosigners, rows, position);
    const shown = await client.getWalletAddress(policy, Buffer.from(hmac), change ? 1 : 0, index, true);
    deps.store.audit(deps.actor, 'ledger.show_address', `wallet ${walletId}: ${ours.address} (${ours.path}) shown on ${cosigners[position]!.name}'s Ledger, which derived ${shown}`, `Ledger ${fingerprint}`, { walletId, cosigner: cosigners[position]!.name });
    if (shown !== ours.address) {
      throw new CoordinatorError('address_mismatch', `the Ledger derives ${shown} at ${ours.path} but this app derives ${ours.address}: do not use this address; one of them is wrong`);
    }
    return { address: shown, path: ours.path, cosigner: cosigners[position]!.name };
  });
}

/**
 * What the Zcash app cannot sign, refused before the device is used: a payment it cannot stream
 * (zcash-sign.ts), or a wallet none of whose keys lies where the app derives (m/44'/133'/a').
 */
function zcashBeforeDevice(params: ChainParams, payment: LedgerPayment, cosigners: readonly CosignerRow[], w: WalletRow): void {
  zcashPreflight(params, payment.tx, payment.inputs);
  if (cosigners.every((c) => zcashAccountPathProblem(c.derivationPath) !== null)) {
    const paths = [...new Set(cosigners.map((c) => c.derivationPath))].join(', ');
    throw new LedgerError(
      'ledger_wrong_key',
      `no key of wallet "${w.name}" was read where the Zcash app derives keys (m/44'/133'/account'; the keys are at ${paths}): the Zcash app cannot sign for it, sign with a signature file instead`,
    );
  }
}

/**
 * Signs every input of a payment the device's co-signer can sign, verifies each signature against
 * our own hash, and stores them all or none.
 */
export async function signPaymentOnLedger(deps: CoreDeps, connector: LedgerConnector, paymentId: string): Promise<FileResult> {
  const p = requirePayment(deps, paymentId);
  const w = requireWallet(deps, p.walletId);
  const params = walletParams(w);
  const cosigners = deps.store.cosigners(w.id);
  if (p.state !== 'awaiting_signatures') return refused('Ledger', 'stale', `payment ${p.id} is ${p.state}, no longer awaiting signatures`, p.id);
  // A vault (issue 27): each input on the path it is spent on, with that path's keys.
  const vault = vaultPaymentInputs(deps, w, p);
  if (!canSignOnLedger(params)) {
    throw new LedgerError('ledger_failed', `signing ${w.coin} payments on a Ledger is not supported by the desk yet (its ${params.sighashAlgorithm} signature hash needs another device flow): sign with a signature file instead`);
  }
  // Before touching the device: the previous transactions, checked against their txids.
  const payment = await ledgerPayment(deps.api, params, w.coin, p, deps.store.paymentInputs(p.id), w.scriptType);
  if (derivesAccountKeysOnly(w.coin)) zcashBeforeDevice(params, payment, cosigners, w);
  const ctx: LedgerContext = { doing: `signing payment ${p.id.slice(0, 8)}` };
  // The signature of input `inputIndex` is checked against co-signer `position`'s key.
  const hashRows = deps.store.paymentHashes(p.id);
  const keyOf = (inputIndex: number, position: number) => hashRows.filter((h) => h.inputIndex === inputIndex)[position]!.publicKey;
  const { offered, position, fingerprint } = await withLedger(connector, ctx, async (transport) => {
    const app = await requireApp(transport, w.coin, w.network, ctx);
    // An app that cannot sign this wallet's segwit inputs is told nothing of the payment.
    if (vault && app.protocol !== 'psbt') {
      throw new LedgerError(
        'ledger_app_too_old',
        `the ${app.name} app (version ${app.version}) cannot sign for "${w.name}", a vault with recovery paths: that needs a registered miniscript wallet policy, which only the Bitcoin app 2.1 or later has. Sign with a signing request or export the payment as a PSBT`,
      );
    }
    const segwitProblem = app.protocol === 'legacy' ? legacySegwitProblem(params, app, w.scriptType) : null;
    if (segwitProblem) throw new LedgerError('ledger_app_too_old', segwitProblem);
    if (derivesAccountKeysOnly(w.coin)) {
      // The Zcash app exports no master key: the device is told by the key it derives at each co-signer's path.
      const holder = await zcashKeyHolder(transport, w.coin, w.network, cosigners);
      if (!holder) throw new LedgerError('ledger_wrong_key', `this Ledger's Zcash app derives none of the keys of wallet "${w.name}" at their paths: connect the co-signer's own device`);
      const signed = await signLegacy(transport, params, payment.tx, payment.inputs, cosigners[holder.position]!.derivationPath);
      return { offered: signed.map((s) => ({ ...s, publicKey: keyOf(s.inputIndex, holder.position) })), position: holder.position, fingerprint: holder.keyId };
    }
    const fingerprint = await deviceFingerprint(transport, app, w.coin);
    const held = devicePositions(cosigners, fingerprint, w);
    // A vault's device must hold a key of the chosen path; nothing is registered or signed otherwise.
    const positions = vault ? positionsOnPath(deps, w, vault, held, fingerprint) : held;
    if (app.protocol === 'psbt') {
      const client = new AppClient(transport);
      let rows = deps.store.ledger.list(w.id);
      const position = positions.find((q) => rows.some((r) => r.position === q)) ?? positions[0]!;
      // First use of this device for the wallet: register it now (once), in the same session.
      if (!rows.some((r) => r.position === position)) {
        await register(deps, client, w, cosigners, position, fingerprint);
        rows = deps.store.ledger.list(w.id);
      }
      const { policy, hmac } = registrationFor(w, cosigners, rows, position);
      const keys = vault ? vaultOrigins(params, storedVaultPolicy(deps, w), cosigners, vault) : multisigOrigins(params, cosigners);
      const psbt: PsbtV2 = paymentPsbt(payment.tx, payment.inputs, keys, deps.store.addresses(w.id), w.scriptType);
      const partial = await client.signPsbt(psbt.serialize(), policy, Buffer.from(hmac));
      const offered = partial.map(([inputIndex, s]) => {
        const sig = new Uint8Array(s.signature);
        // ECDSA partial signatures carry the hash type byte: it must be the coin's (SIGHASH_ALL).
        if (sig.at(-1) !== params.hashType) throw new CoordinatorError('tampered', `the Ledger's signature of input ${inputIndex} has hash type ${sig.at(-1)}, not ${params.hashType}: nothing was stored`);
        return { inputIndex, publicKey: new Uint8Array(s.pubkey), signature: sig.subarray(0, -1) };
      });
      return { offered, position, fingerprint };
    }
    const position = positions[0]!;
    if (cosigners[position]!.derivationPath === 'm') {
      throw new LedgerError('ledger_wrong_key', `${cosigners[position]!.name}'s key has no recorded path below the Ledger's master key: the device cannot find it (read the key from the Ledger when creating the wallet)`);
    }
    const signed = await signLegacy(transport, params, payment.tx, payment.inputs, cosigners[position]!.derivationPath);
    const offered = signed.map((s) => ({ ...s, publicKey: keyOf(s.inputIndex, position) }));
    return { offered, position, fingerprint };
  });

  const signer = cosigners[position]!;
  const source = `Ledger ${fingerprint}`;
  if (offered.length === 0) return refused(source, 'foreign', `the Ledger signed no input of payment ${p.id}: none of its inputs is ${signer.name}'s`, p.id);
  const hashes = deps.store.paymentHashes(p.id);
  const checked: CheckedSignature[] = [];
  for (const s of offered) {
    // As a signature file's: on a vault, a key of another path than the payment's is refused in words.
    const r = checkCosignerSignature(deps, w, vault, hashes, s, p.id, signer);
    if (!r.ok) return refused(source, r.refusal, `${r.message}: nothing from this device was stored`, p.id);
    checked.push(r.value);
  }
  const added = storeSignatures(deps, p.id, checked, source, signer.name);
  const message = added === 0 ? `${source}: already signed, ignored` : `${source}: ${plural(added, 'signature')} by ${signer.name} stored`;
  return { file: source, status: added === 0 ? 'duplicate' : 'imported', message, paymentId: p.id, added, progress: progress(deps, p.id).inputs };
}

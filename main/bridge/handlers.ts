// The bridge implemented once over main/core: each channel is a thin translation from core's rows
// to the contract's views. Both transports (IPC, HTTP) call these through dispatch().
import { ApiClientError } from '../../shared/api/client.ts';
import type { CoinName } from '../../shared/coins/index.ts';
import { chainParams } from '../../shared/coins/index.ts';
import type { AccountDeps } from '../core/accounts/accounts.ts';
import { memoryAccountSecrets, type AccountSecrets } from '../core/accounts/keys.ts';
import type { ServiceConnection } from '../core/chains/connection.ts';
import { LedgerError, ledgerErrorOf } from '../core/ledger/errors.ts';
import { DEFAULT_ETHER_PATH, ledgerEtherSigner } from '../core/ledger/ether.ts';
import { registerWalletOnLedger, showAddressOnLedger, signPaymentOnLedger } from '../core/ledger/ledger-flows.ts';
import { defaultAccountPath, scriptAccountPath } from '../core/ledger/paths.ts';
import { usbConnector, type LedgerConnector } from '../core/ledger/transport.ts';
import { readLedgerXpub } from '../core/ledger/xpub.ts';
import { importPaymentFiles } from '../core/payments/files.ts';
import { checkPaymentDraft, spendable } from '../core/payments/draft.ts';
import { cancelPayment, openPaymentCount, requirePayment } from '../core/payments/payments.ts';
import { BatchRefusedError, checkRecipients, readRecipientsCsv, refuseBatchTotal, rowRefusalWords, typedTotal } from '../core/payments/batch.ts';
import { batchProposal, proposePayment, spendableFunds, type PaymentProposal } from '../core/payments/propose.ts';
import { frozenOutpoints, reservedOutpoints } from '../core/payments/coin-selection.ts';
import { outpointKey } from '../core/payments/outpoints.ts';
import { feePresets, REPLACEABLE_SETTING, replaceableByDefault, signalsReplacement } from '../core/payments/fees.ts';
import { exportPsbt } from '../core/payments/psbt-exchange.ts';
import { psbtQr, readScan, registrationQr, restorePreviousTransactions } from '../core/payments/qr-exchange.ts';
import { base64 } from '@scure/base';
import { replacementsRelayed, serviceHealth, unservedWords } from '../core/chains/service-status.ts';
import { watchScans } from '../core/chains/watch-progress.ts';
import { exportSigningRequest, openSigningRequest } from '../core/payments/signing-request.ts';
import { AddressScans } from '../core/wallets/address-scan.ts';
import { notFinalWords } from '../core/wallets/figures-final.ts';
import { purposesByTx } from '../core/labels.ts';
import { signRequest, softwareKeyFrom } from '../core/software-signer.ts';
import type { CoordinatorStore, WalletRow } from '../core/store/store.ts';
import { followPayment, submitPayment } from '../core/payments/submit.ts';
import { walletFundsOnceIndexed, walletHistory, walletUnspent } from '../core/wallets/funds.ts';
import { exportWalletSetup, readNewWalletSetup } from '../core/wallets/setup-files.ts';
import { nextReceiveAddress, requireWallet, walletParams, type CoreDeps } from '../core/wallets/wallets.ts';
import { createAccountHandlers } from './accounts.ts';
import { createChainHandlers, type ChainBridgeDeps } from './chains.ts';
import { createWalletWithBirthday, requestRescan, walletWatch } from '../core/wallets/birthday.ts';
import { setCosignerDevice } from '../core/wallets/signer-devices.ts';
import { createAuditHandlers } from './audit.ts';
import { createRelayHandlers } from './relay.ts';
import { MemorySecretStore, type ExaminedSecretStore } from '../core/secrets.ts';
import { createLabelHandlers } from './labels.ts';
import { createVaultHandlers } from './vaults.ts';
import { createReplacementHandlers } from './replacements.ts';
import { createFeeSettingHandlers } from './fee-settings.ts';
import { usdValue } from '../core/payments/fee-limit.ts';
import { droppedButPossible } from '../core/payments/dropped.ts';
import { ownNodesOf, type OwnNode } from '../core/chains/own-node.ts';
import { coinViews } from './coins.ts';
import type { Handlers } from './dispatch.ts';
import { draftRefusalWords } from './refusals.ts';
import { unitOf } from './units.ts';
import { cosignerView, importResultView, openedRequestView, paymentDetail, paymentSummary, receiveAddressView, settingsView, setupDraftView, walletSummary } from './views.ts';

export interface BridgeDeps {
  store: CoordinatorStore;
  /** Embedded or remote: core and every handler talk through connection.api either way. */
  connection: ServiceConnection;
  /** Who acts, for the audit log. */
  actor: string;
  /** Where software Ether keys are kept, one SecretStore per account; default: this process's memory. */
  accountSecrets?: AccountSecrets;
  /** A Ledger's signer for an Ether account, when device support is wired in. */
  ledgerSigner?: AccountDeps['ledgerSigner'];
  /** How Ledgers are reached: USB in the app (loaded on first use), an APDU replay in tests. */
  ledger?: LedgerConnector;
  /** The embedded service this desk started, whose chains Settings connects; absent: none (dev desk, tests). */
  chains?: ChainBridgeDeps['chains'];
  /** The treasurer's own nodes; default: the nodes connected in Settings (`chains`), none without them. */
  ownNode?: OwnNode;
  /** Where the desk's relay device secret is kept (safeStorage on Electron); default: this process's memory. */
  relaySecrets?: ExaminedSecretStore;
}

export function createHandlers(deps: BridgeDeps): Handlers {
  const { store, connection } = deps;
  const api = connection.api;
  const ownNode = deps.ownNode ?? (deps.chains ? ownNodesOf(store, deps.chains.secrets) : undefined);
  const core: CoreDeps = { store, api, actor: deps.actor, ...(ownNode ? { ownNode } : {}) };
  const funds = { store, api };
  const ledger = deps.ledger ?? usbConnector();
  // Ether accounts sign on a Ledger when one is wired in (the app passes its USB connector).
  const ledgerSigner: AccountDeps['ledgerSigner'] =
    deps.ledgerSigner ?? (deps.ledger ? (a) => Promise.resolve(ledgerEtherSigner(ledger, a.address, a.derivationPath ?? DEFAULT_ETHER_PATH)) : undefined);
  const accounts = createAccountHandlers({
    store,
    api,
    actor: deps.actor,
    secrets: deps.accountSecrets ?? memoryAccountSecrets(),
    ...(ledgerSigner ? { ledgerSigner } : {}),
  });

  const settings = () => settingsView(connection, deps.chains !== undefined);
  // The wallet's unspent outputs, each saying whether it is frozen or already spent by an unsent payment.
  const unspentView = async (walletId: string) => {
    const params = walletParams(requireWallet(core, walletId));
    const reserved = reservedOutpoints(store, walletId, params);
    const frozen = frozenOutpoints(store, walletId);
    return (await walletUnspent(funds, walletId)).map((u) => {
      const o = outpointKey(u);
      return { ...u, frozen: frozen.has(o), reserved_by: reserved.get(o) ?? null };
    });
  };
  // Today's USD value of an amount; null when the service has no rate (the review then says so).
  const usdOf = (units: bigint, coin: CoinName, decimals: number): Promise<number | null> => usdValue(api, coin, units, decimals);
  // A fee or a rate (the contract lets exactly one through); new payments replaceable unless the setting says no.
  const feeOf = (minersFee: bigint | undefined, feeRate: bigint | undefined) => ({
    minersFee: minersFee ?? 0n,
    ...(feeRate !== undefined ? { feeRate } : {}),
    replaceable: replaceableByDefault(store),
  });
  const summary = (w: WalletRow) => walletSummary(core, w);
  // Which addresses of each wallet are used, walked once a run in the background (the balance is partial until then).
  const scans = new AddressScans(core);

  return {
    ...accounts,
    ...createAuditHandlers(store),
    ...createRelayHandlers({ core, connection, secrets: deps.relaySecrets ?? new MemorySecretStore(), ledger }),
    ...createLabelHandlers({ store, api, actor: deps.actor }),
    ...createVaultHandlers({ ...core, api }, (w) => walletSummary(core, w)),
    ...createReplacementHandlers(core),
    ...createFeeSettingHandlers(core),
    ...createChainHandlers({ store, connection, actor: deps.actor, ...(deps.chains ? { chains: deps.chains } : {}) }),

    'service.status': async () => {
      const { mode, url } = connection;
      const health = await serviceHealth(api);
      return { mode, service_url: url, ...health, scans: await watchScans(api, store.wallets(), health.coins) };
    },

    // Every change the desk makes is audited in the same transaction, so the log's newest id is its revision.
    'desk.changes': async () => ({ revision: store.auditTrail.lastId() }),

    'coins.list': async () => coinViews(),

    'settings.get': async () => settings(),

    'settings.setService': async (input) => {
      await connection.switchTo(input.mode === 'embedded' ? { mode: 'embedded' } : { mode: 'remote', baseUrl: input.base_url, apiKey: input.api_key });
      return settings();
    },

    'wallets.list': async () => store.wallets().map(summary),

    'wallets.create': async (input) => {
      const w = await createWalletWithBirthday({ ...core, api }, {
        coin: input.coin,
        network: input.network,
        name: input.name,
        m: input.m,
        cosigners: input.cosigners.map((c) => ({
          name: c.name,
          xpub: c.xpub,
          ...(c.fingerprint ? { fingerprint: c.fingerprint } : {}),
          ...(c.derivation_path ? { derivationPath: c.derivation_path } : {}),
          ...(c.device ? { device: c.device } : {}),
        })),
        ...(input.script_type !== undefined ? { scriptType: input.script_type } : {}),
        ...(input.sort_keys !== undefined ? { sortKeys: input.sort_keys } : {}),
      }, input.birthday ?? { source: 'tip' });
      return summary(w);
    },

    'wallets.rescan': async ({ wallet_id, from }) => {
      const w = requireWallet(core, wallet_id);
      const r = await requestRescan({ ...core, api }, w, from);
      // The blocks are read again, and coins may turn up on addresses the walk found unused: it walks again.
      scans.forget(wallet_id);
      return { wallet_id, from_height: r.fromHeight, requested_at: r.requestedAt, message: `a rescan of "${w.name}" from block ${r.fromHeight} is recorded; a watching service reads its blocks again from there` };
    },

    'wallets.setCosignerDevice': async ({ wallet_id, position, device }) => cosignerView(setCosignerDevice(core, wallet_id, position, device)),

    'wallets.get': async ({ wallet_id }) => {
      const w = requireWallet(core, wallet_id);
      const watch = await walletWatch(api, w);
      const base = { ...summary(w), open_payments: openPaymentCount(core, wallet_id), watch: watch && { state: watch.state, words: watch.words, history_limit: watch.historyLimit } };
      // A wallet made before its service changed (or on another desk): its page still names it and says why.
      const unservedOr = async (err: unknown) => {
        if (!(err instanceof ApiClientError) || err.status < 400 || err.status >= 500) return null;
        return unservedWords(api, w.coin, w.network).catch(() => null);
      };
      // No figures to show at all: nothing to call final.
      const none = (unserved: string | null, notFinal: string | null) => ({ ...base, funds: null, unserved, scan: null, not_final: notFinal });
      // A wallet the service does not watch yet has no figures to ask for.
      if (watch?.state === 'unregistered') return none(null, watch.words);
      try {
        // The walk's state before the funds: a walk that ends between the two would call a partial balance final.
        const scan = scans.progress(wallet_id);
        const f = await walletFundsOnceIndexed(funds, wallet_id);
        const unserved = await unservedOr(scans.failure(wallet_id));
        if (unserved !== null) return none(unserved, null);
        // One predicate for the card, the page and the books (figures-final.ts). The index is current
        // when the status bar says so too (service.status's index_final), not merely answering.
        const index = (await serviceHealth(api)).coins.find((c) => c.coin === w.coin && c.network === w.network);
        const notFinal = notFinalWords({ indexed: f !== null && index?.index_final === true, walk: scan, watch });
        return { ...base, funds: f && { balance: f.balance, unconfirmed_balance: f.unconfirmedBalance, usd_balance: f.usdBalance }, unserved: null, scan, not_final: notFinal };
      } catch (err) {
        const unserved = await unservedOr(err);
        if (unserved === null) throw err;
        return none(unserved, null);
      }
    },

    'wallets.receiveAddress': async ({ wallet_id }) => {
      const w = requireWallet(core, wallet_id);
      return receiveAddressView(w, await nextReceiveAddress(core, wallet_id));
    },

    'wallets.history': async ({ wallet_id, limit, offset }) => {
      const entries = await walletHistory(funds, wallet_id);
      const purposes = purposesByTx(store, wallet_id);
      return { total: entries.length, entries: entries.slice(offset, offset + limit).map((e) => ({ ...e, purpose: purposes.get(e.txid) ?? null })) };
    },

    'wallets.unspent': async ({ wallet_id }) => unspentView(wallet_id),

    'wallets.freezeOutput': async ({ wallet_id, outpoint, frozen }) => {
      requireWallet(core, wallet_id);
      const ref = outpoint.toLowerCase();
      const label = store.labels.get(wallet_id, 'output', ref)?.label ?? '';
      store.transaction(() => {
        store.labels.put(wallet_id, { type: 'output', ref, label, spendable: frozen ? false : null }, new Date().toISOString());
        store.audit(deps.actor, frozen ? 'output.freeze' : 'output.unfreeze', `${ref}: ${frozen ? 'frozen, never picked automatically' : 'unfrozen'}`, null, { walletId: wallet_id });
      });
      return unspentView(wallet_id);
    },

    // Newest first, as the screens say (the store keeps them in the order they were proposed).
    'payments.list': async ({ wallet_id }) => store.payments(wallet_id).reverse().map((p) => paymentSummary(core, p)),

    'payments.get': async ({ payment_id }) => {
      await followPayment(core, payment_id);
      const { coin, network } = requireWallet(core, requirePayment(core, payment_id).walletId);
      const detail = paymentDetail(core, payment_id, await replacementsRelayed(api, coin, network));
      return { ...detail, fee_usd: await usdOf(detail.miners_fee, requireWallet(core, detail.wallet_id).coin, detail.unit.decimals) };
    },

    'payments.checkDraft': async ({ wallet_id, to, amount, miners_fee, operator }) => {
      const { params, refusals } = await checkPaymentDraft(funds, wallet_id, {
        ...(to !== undefined ? { to } : {}),
        ...(amount !== undefined ? { amount } : {}),
        ...(miners_fee !== undefined ? { minersFee: miners_fee } : {}),
        ...(operator ? { operatorFee: { ...(operator.address !== undefined ? { address: operator.address } : {}), ...(operator.fee_amount !== undefined ? { amount: operator.fee_amount } : {}) } } : {}),
      });
      const warnings = to !== undefined ? droppedButPossible(core, [to]) : [];
      return { refusals: refusals.map((r) => ({ field: r.field, message: draftRefusalWords(r, unitOf(params.coin, params.network, params.decimals)) })), warnings };
    },

    'payments.propose': async ({ wallet_id, to, amount, rows, send_all, miners_fee, fee_rate, inputs, operator, purpose, vault_path }) => {
      const operatorFee = operator ? { address: operator.address, amount: operator.fee_amount } : undefined;
      let form: PaymentProposal;
      if (rows) {
        // Every row is checked before anything is built; one bad row refuses the whole batch.
        const { recipients, refusals } = checkRecipients(walletParams(requireWallet(core, wallet_id)), rows);
        if (refusals.length > 0) throw new BatchRefusedError(refusals, walletParams(requireWallet(core, wallet_id)));
        form = batchProposal(recipients, 0n, operatorFee);
      } else {
        form = { to: to ?? '', amount: amount ?? 0n, minersFee: 0n, ...(operatorFee ? { operatorFee } : {}), ...(send_all ? { sendAll: true } : {}) };
      }
      const p = await proposePayment(core, wallet_id, { ...form, ...feeOf(miners_fee, fee_rate), ...(inputs ? { inputs } : {}), ...(purpose ? { purpose } : {}), ...(vault_path !== undefined ? { vaultPath: vault_path } : {}) });
      return paymentDetail(core, p.id);
    },

    'payments.spendable': async ({ wallet_id, send_all }) => {
      const w = requireWallet(core, wallet_id);
      const f = await spendableFunds(
        core,
        wallet_id,
        send_all && {
          ...(send_all.to !== undefined ? { to: send_all.to } : {}),
          ...(send_all.inputs ? { inputs: send_all.inputs } : {}),
          ...(send_all.miners_fee !== undefined ? { minersFee: send_all.miners_fee } : {}),
          ...(send_all.fee_rate !== undefined ? { feeRate: send_all.fee_rate } : {}),
          ...(send_all.operator ? { operatorFee: { address: send_all.operator.address, amount: send_all.operator.fee_amount } } : {}),
        },
      );
      const unit = unitOf(w.coin, w.network, walletParams(w).decimals);
      const sendAll = f.sendAll && ('refused' in f.sendAll ? f.sendAll : { amount: f.sendAll.amount, miners_fee: f.sendAll.fee, outputs: f.sendAll.outputs });
      return { unit, available: { balance: f.available, unconfirmed_balance: f.unconfirmed }, reserved: { amount: f.reserved, payments: f.reservedBy }, frozen: { amount: f.frozen }, send_all: sendAll };
    },

    'payments.feePresets': async ({ wallet_id }) => {
      const w = requireWallet(core, wallet_id);
      const relayed = await replacementsRelayed(api, w.coin, w.network);
      return { presets: feePresets(await api.feeEstimates(w.coin)).map((p) => ({ name: p.name, blocks: p.blocks, fee_rate: p.rate, fallback: p.fallback })), bip125: signalsReplacement(w.coin, true), relayed, replaceable: signalsReplacement(w.coin, replaceableByDefault(store)) };
    },

    'settings.setReplaceable': async ({ on }) => {
      if (on === undefined) return { replaceable: replaceableByDefault(store) };
      store.setSettings({ [REPLACEABLE_SETTING]: on ? null : 'false' });
      store.audit(deps.actor, 'settings.replaceable', on ? 'new payments are replaceable (BIP125) where the coin allows it' : 'new payments are final (not replaceable)');
      return { replaceable: replaceableByDefault(store) };
    },

    'payments.checkBatch': async ({ wallet_id, csv, rows, miners_fee, operator_fee }) => {
      const params = walletParams(requireWallet(core, wallet_id));
      const read = csv !== undefined ? readRecipientsCsv(csv) : { rows: rows ?? [], refusals: [] };
      const { refusals } = checkRecipients(params, read.rows);
      // The funds are asked of the service only when some amount can be read. They are a help to
      // the typist: without an answer the rows are still checked, and Propose checks the funds.
      const holds = typedTotal(params, read.rows).recipients > 0 ? await spendable(funds, wallet_id).catch(() => null) : null;
      const total = holds === null ? null : refuseBatchTotal(params, read.rows, (miners_fee ?? 0n) + (operator_fee ?? 0n), holds);
      const { ticker } = unitOf(params.coin, params.network, params.decimals);
      const all = [...read.refusals, ...refusals, ...(total ? [total] : [])].sort((a, b) => a.line - b.line);
      return { rows: read.rows, refusals: all.map((r) => ({ line: r.line, message: rowRefusalWords(r, params.decimals, ticker) })) };
    },

    'wallets.readSetup': async ({ files, coin, network, name, m, script_type, sort_keys }) =>
      setupDraftView(
        readNewWalletSetup(core, files, { coin, network, ...(name ? { name } : {}), ...(m !== undefined ? { m } : {}), ...(script_type ? { scriptType: script_type } : {}), ...(sort_keys !== undefined ? { sortKeys: sort_keys } : {}) }),
      ),

    'wallets.exportSetup': async ({ wallet_id, format }) => {
      const f = exportWalletSetup(core, wallet_id, format);
      return { file_name: f.fileName, text: f.text };
    },

    'payments.exportRequest': async ({ payment_id }) => {
      const { fileName, text } = await exportSigningRequest(core, payment_id);
      return { file_name: fileName, text };
    },

    'payments.exportPsbt': async ({ payment_id }) => {
      const { fileName, base64 } = await exportPsbt(core, payment_id);
      return { file_name: fileName, text: base64, encoding: 'base64' };
    },

    'payments.importSignatures': async ({ files }) => importPaymentFiles(core, files).map(importResultView),

    'qr.psbtFrames': async ({ payment_id, format, density, devices, short }) => {
      const q = await psbtQr(core, payment_id, { ...(format ? { format } : {}), density, ...(devices ? { devices } : {}), ...(short !== undefined ? { short } : {}) });
      return { format: q.format, frames: q.frames, density: q.density, short: q.short, bytes: q.bytes, preferred: q.preferred, preferred_why: q.preferredWhy, ...(format || !devices ? {} : { devices }) };
    },

    'qr.registration': async ({ wallet_id, device, density, code }) => ({ ...registrationQr(core, wallet_id, device, density, code), density }),

    'qr.read': async ({ frames, expect, script, payment_id }) => {
      const r = readScan(frames, expect, script ?? null);
      if (r.state === 'psbt' && payment_id) {
        const whole = await restorePreviousTransactions(core, payment_id, base64.decode(r.text));
        return { ...r, text: base64.encode(whole) };
      }
      if (r.state !== 'key') return r;
      return { state: 'key', format: r.format, key: { xpub: r.key.xpub, fingerprint: r.key.fingerprint, derivation_path: r.key.derivationPath, script: r.key.script ?? null, device: r.key.device ?? null } };
    },

    'payments.submit': async ({ payment_id }) => {
      await submitPayment(core, payment_id);
      return paymentDetail(core, payment_id);
    },

    'payments.cancel': async ({ payment_id, reason }) => {
      cancelPayment(core, payment_id, reason);
      return paymentDetail(core, payment_id);
    },

    'ledger.devices': async () => {
      try {
        const devices = await ledger.list();
        return { devices, usb: true, message: devices.length ? `${devices.length} Ledger${devices.length === 1 ? '' : 's'} connected` : 'no Ledger connected: plug it in with a USB cable and unlock it' };
      } catch (err) {
        if (err instanceof LedgerError && err.code === 'ledger_usb_missing') return { devices: [], usb: false, message: err.message };
        throw ledgerErrorOf(err, { doing: 'looking for Ledgers' });
      }
    },

    'ledger.xpub': async ({ coin, network, path, script_type }) => {
      const coinType = chainParams(coin, network).bip44CoinType;
      const got = await readLedgerXpub(ledger, coin, network, path ?? (script_type ? scriptAccountPath(coinType, script_type) : defaultAccountPath(coinType)));
      return { xpub: got.xpub, fingerprint: got.fingerprint, derivation_path: got.path, app: `${got.app.name} ${got.app.version}` };
    },

    'ledger.registerWallet': async ({ wallet_id }) => {
      const r = await registerWalletOnLedger(core, ledger, wallet_id);
      return { cosigner: r.cosigner, policy_id: r.policy_id, registered_at: r.registered_at };
    },

    'ledger.showAddress': async ({ wallet_id, change, index }) => showAddressOnLedger(core, ledger, wallet_id, change, index),

    'ledger.signPayment': async ({ payment_id }) => importResultView(await signPaymentOnLedger(core, ledger, payment_id)),

    'cosigner.open': async ({ text }) => {
      const opened = openSigningRequest(text);
      const view = openedRequestView(opened);
      return { ...view, leaving: { ...view.leaving, usd: await usdOf(view.leaving.amount, opened.request.coin, view.unit.decimals) } };
    },

    'cosigner.sign': async ({ text, secret, passphrase }) => {
      const signed = signRequest(text, softwareKeyFrom(secret, passphrase));
      return { file_name: signed.fileName, text: signed.file, signer: signed.signer };
    },
  };
}


// The bridge implemented once over main/core: each channel is a thin translation from core's rows
// to the contract's views. Both transports (IPC, HTTP) call these through dispatch().
import QRCode from 'qrcode';
import type { HistoryTx } from '../../shared/api/schemas.ts';
import { addressToScript, bytesToHex, chainParams, decodeTx, scriptToAddress } from '../../shared/coins/index.ts';
import type { ServiceConnection } from '../core/connection.ts';
import type { AccountDeps } from '../core/accounts/accounts.ts';
import { memoryAccountSecrets, type AccountSecrets } from '../core/accounts/keys.ts';
import { signRequest, softwareKeyFrom } from '../core/cosigner.ts';
import { openSigningRequest, writeSigningRequest } from '../core/files/signing-request.ts';
import { exportPsbt, exportWalletSetup, importPaymentFiles, readWalletSetup } from '../core/interop.ts';
import { registerWalletOnLedger, showAddressOnLedger, signPaymentOnLedger } from '../core/ledger/cosigner.ts';
import { LedgerError, ledgerErrorOf } from '../core/ledger/errors.ts';
import { DEFAULT_ETHER_PATH, ledgerEtherSigner } from '../core/ledger/ether.ts';
import { defaultAccountPath } from '../core/ledger/paths.ts';
import { usbConnector, type LedgerConnector } from '../core/ledger/transport.ts';
import { readLedgerXpub } from '../core/ledger/xpub.ts';
import { cancelPayment, paymentHash, progress, proposePayment, refreshConfirmations, requirePayment, submitPayment } from '../core/payments.ts';
import type { AddressRow, CoordinatorStore, PaymentRow, WalletRow } from '../core/store/store.ts';
import { addressPath, createWallet, nextReceiveAddress, requireWallet, walletParams, type CoreDeps } from '../core/wallets.ts';
import type { HistoryEntry, OutputView, ServiceSettings, PaymentDetail, PaymentSummary, WalletSummary } from './contract.ts';
import { createAccountHandlers } from './accounts.ts';
import { coinViews } from './coins.ts';
import type { Handlers } from './dispatch.ts';
import { explainPayment } from './explain.ts';
import { unitOf, uriScheme } from './units.ts';

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
}

/** The service takes at most 200 addresses per request. */
const MAX_ADDRESSES = 200;
function chunks<T>(items: readonly T[], size = MAX_ADDRESSES): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'wallet';

export function createHandlers(deps: BridgeDeps): Handlers {
  const { store, connection } = deps;
  const api = connection.api;
  const core: CoreDeps = { store, api, actor: deps.actor };
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

  const settings = (): ServiceSettings => ({
    mode: connection.mode,
    service_url: connection.url,
    embedded_url: connection.embeddedUrl,
    remote_url: connection.remoteUrl,
    key_stored: connection.keyStored,
    key_storage: connection.keyStorage(),
    notice: connection.notice,
  });

  const summary = (w: WalletRow): WalletSummary => {
    const cosigners = store.cosigners(w.id);
    return {
      id: w.id,
      name: w.name,
      coin: w.coin,
      network: w.network,
      m: w.m,
      n: cosigners.length,
      cosigners: cosigners.map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivation_path: c.derivationPath })),
      created_at: w.createdAt,
      unit: unitOf(w.coin, w.network, walletParams(w).decimals),
    };
  };

  const addressesOf = (walletId: string): AddressRow[] => store.addresses(walletId);

  const paymentSummary = (p: PaymentRow): PaymentSummary => {
    const w = requireWallet(core, p.walletId);
    const prog = progress(core, p.id);
    const signed = Math.min(...prog.inputs.map((i) => i.signed));
    return {
      id: p.id,
      wallet_id: w.id,
      wallet_name: w.name,
      to: p.to,
      amount: p.amount,
      state: p.state,
      explanation: explainPayment({ state: p.state, m: w.m, signed, reason: p.reason, lastError: p.lastError, confirmations: p.confirmations }),
      signed,
      required: w.m,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
      unit: unitOf(w.coin, w.network, walletParams(w).decimals),
    };
  };

  const paymentDetail = (id: string): PaymentDetail => {
    const p = requirePayment(core, id);
    const w = requireWallet(core, p.walletId);
    const params = walletParams(w);
    const prog = progress(core, id);
    const amounts = new Map(store.paymentInputs(id).map((i) => [i.inputIndex, i.amount]));
    const asked = p.operatorAddress ? 2 : 1;
    const outputs: OutputView[] = decodeTx(p.unsignedTx, params).outputs.map((o, i) => ({
      address: scriptToAddress(params, o.script) ?? `script ${bytesToHex(o.script)}`,
      amount: o.value,
      purpose: i === 0 ? 'payment' : i < asked ? 'operator_fee' : 'change',
    }));
    const signers = new Set(prog.inputs.flatMap((i) => i.signers));
    return {
      ...paymentSummary(p),
      miners_fee: p.totalInputValue - outputs.reduce((s, o) => s + o.amount, 0n),
      operator_address: p.operatorAddress,
      fee_amount: p.operatorFee,
      total_input_value: p.totalInputValue,
      payment_hash: paymentHash(p.unsignedTx),
      reason: p.reason,
      last_error: p.lastError,
      txid: p.txid,
      confirmations: p.confirmations,
      inputs: prog.inputs.map((i) => ({ input_index: i.inputIndex, amount: amounts.get(i.inputIndex) ?? 0n, required: i.required, signed: i.signed, signers: i.signers })),
      outputs,
      cosigners: store.cosigners(w.id).map((c) => ({ name: c.name, signed: signers.has(c.name) })),
    };
  };

  return {
    ...accounts,

    'service.status': async () => {
      const { mode, url } = connection;
      try {
        const status = await api.status();
        const behind = status.coins.filter((c) => c.error !== null || (c.lag ?? 0) > 2);
        return {
          mode,
          service_url: url,
          ok: behind.length === 0,
          message: behind.length === 0 ? 'connected; the index is up to date' : behind.map((c) => `${c.coin}: ${c.error ?? `${c.lag} blocks behind`}`).join('; '),
          coins: status.coins.map((c) => ({ coin: c.coin, network: c.network, tip_height: c.tip_height, indexed_height: c.indexed_height, lag: c.lag, error: c.error })),
        };
      } catch (err) {
        return { mode, service_url: url, ok: false, message: err instanceof Error ? err.message : String(err), coins: [] };
      }
    },

    'coins.list': async () => coinViews(),

    'settings.get': async () => settings(),

    'settings.setService': async (input) => {
      await connection.switchTo(input.mode === 'embedded' ? { mode: 'embedded' } : { mode: 'remote', baseUrl: input.base_url, apiKey: input.api_key });
      return settings();
    },

    'wallets.list': async () => store.wallets().map(summary),

    'wallets.create': async (input) => {
      const w = await createWallet(core, {
        coin: input.coin,
        network: input.network,
        name: input.name,
        m: input.m,
        cosigners: input.cosigners.map((c) => ({
          name: c.name,
          xpub: c.xpub,
          ...(c.fingerprint ? { fingerprint: c.fingerprint } : {}),
          ...(c.derivation_path ? { derivationPath: c.derivation_path } : {}),
        })),
      });
      return summary(w);
    },

    'wallets.get': async ({ wallet_id }) => {
      const w = requireWallet(core, wallet_id);
      let balance = 0n;
      let unconfirmed = 0n;
      let usd = 0;
      for (const batch of chunks(addressesOf(wallet_id).map((a) => a.address))) {
        const { totals } = await api.balances(w.coin, batch);
        balance += totals.balance;
        unconfirmed += totals.unconfirmed_balance;
        usd += totals.usd_balance;
      }
      const open = store.payments(wallet_id).filter((p) => p.state === 'awaiting_signatures' || p.state === 'ready' || p.state === 'broadcast').length;
      return { ...summary(w), funds: { balance, unconfirmed_balance: unconfirmed, usd_balance: usd }, open_payments: open };
    },

    'wallets.receiveAddress': async ({ wallet_id }) => {
      const w = requireWallet(core, wallet_id);
      const a = await nextReceiveAddress(core, wallet_id);
      const uri = `${uriScheme(w.coin)}:${a.address}`;
      const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      return { address: a.address, path: addressPath(a.change, a.index), uri, qr_data_url: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
    },

    'wallets.history': async ({ wallet_id, limit, offset }) => {
      const w = requireWallet(core, wallet_id);
      const rows: HistoryTx[] = [];
      for (const batch of chunks(addressesOf(wallet_id).map((a) => a.address))) rows.push(...(await api.history(w.coin, batch, { limit: 1000 })).txs);
      // The service lists one entry per (transaction, address); the treasurer wants one per transaction.
      const byTx = new Map<string, HistoryEntry>();
      for (const r of rows) {
        const txid = r.txid ?? `${r.address}@${r.time}`;
        const e = byTx.get(txid) ?? { txid, amount: 0n, confirmations: r.confirmations, time: r.time };
        e.amount += r.is_deposit ? r.amount : -r.amount;
        byTx.set(txid, e);
      }
      const entries = [...byTx.values()].sort((a, b) => a.confirmations - b.confirmations || b.time - a.time);
      return { total: entries.length, entries: entries.slice(offset, offset + limit) };
    },

    'wallets.unspent': async ({ wallet_id }) => {
      const w = requireWallet(core, wallet_id);
      const params = walletParams(w);
      const rows = addressesOf(wallet_id);
      const byScript = new Map(rows.map((a) => [bytesToHex(addressToScript(params, a.address)), a]));
      const out = [];
      for (const batch of chunks(rows.map((a) => a.address))) {
        for (const u of (await api.utxos(w.coin, batch)).utxos) {
          const row = byScript.get(u.script_pub_key.toLowerCase());
          if (row) out.push({ txid: u.txid, vout: u.vout, amount: u.amount, address: row.address, path: addressPath(row.change, row.index) });
        }
      }
      return out;
    },

    'payments.list': async ({ wallet_id }) => store.payments(wallet_id).map(paymentSummary),

    'payments.get': async ({ payment_id }) => {
      const p = requirePayment(core, payment_id);
      if (p.state === 'broadcast') {
        try {
          await refreshConfirmations(core, payment_id);
        } catch (err) {
          // The stored state is still right; the next look will try again.
          if (!(err instanceof Error)) throw err;
        }
      }
      return paymentDetail(payment_id);
    },

    'payments.propose': async ({ wallet_id, to, amount, miners_fee, operator }) => {
      const p = await proposePayment(core, wallet_id, { to, amount, minersFee: miners_fee, ...(operator ? { operatorFee: { address: operator.address, amount: operator.fee_amount } } : {}) });
      return paymentDetail(p.id);
    },

    'wallets.readSetup': async ({ files, coin, network, name, m }) => {
      const { wallet, notes } = readWalletSetup(files, { coin, network, ...(name ? { name } : {}), ...(m !== undefined ? { m } : {}) });
      return {
        name: wallet.name,
        coin: wallet.coin,
        network: wallet.network,
        m: wallet.m,
        cosigners: wallet.cosigners.map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint ?? '00000000', derivation_path: c.derivationPath ?? 'm' })),
        notes,
      };
    },

    'wallets.exportSetup': async ({ wallet_id, format }) => {
      const f = exportWalletSetup(core, wallet_id, format);
      return { file_name: f.fileName, text: f.text };
    },

    'payments.exportRequest': async ({ payment_id }) => {
      const p = requirePayment(core, payment_id);
      const w = requireWallet(core, p.walletId);
      return { file_name: `signing-request-${fileSafe(w.name)}-${p.id.slice(0, 8)}.json`, text: await writeSigningRequest(core, payment_id) };
    },

    'payments.exportPsbt': async ({ payment_id }) => {
      const { fileName, base64 } = await exportPsbt(core, payment_id);
      return { file_name: fileName, text: base64, encoding: 'base64' };
    },

    'payments.importSignatures': async ({ files }) =>
      importPaymentFiles(core, files).map((r) => ({
        file: r.file,
        status: r.status,
        refusal: r.refusal ?? null,
        message: r.message,
        payment_id: r.paymentId ?? null,
        added: r.added,
      })),

    'payments.submit': async ({ payment_id }) => {
      await submitPayment(core, payment_id);
      return paymentDetail(payment_id);
    },

    'payments.cancel': async ({ payment_id, reason }) => {
      cancelPayment(core, payment_id, reason);
      return paymentDetail(payment_id);
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

    'ledger.xpub': async ({ coin, network, path }) => {
      const got = await readLedgerXpub(ledger, coin, network, path ?? defaultAccountPath(chainParams(coin, network).bip44CoinType));
      return { xpub: got.xpub, fingerprint: got.fingerprint, derivation_path: got.path, app: `${got.app.name} ${got.app.version}` };
    },

    'ledger.registerWallet': async ({ wallet_id }) => {
      const r = await registerWalletOnLedger(core, ledger, wallet_id);
      return { cosigner: r.cosigner, policy_id: r.policy_id, registered_at: r.registered_at };
    },

    'ledger.showAddress': async ({ wallet_id, change, index }) => showAddressOnLedger(core, ledger, wallet_id, change, index),

    'ledger.signPayment': async ({ payment_id }) => {
      const r = await signPaymentOnLedger(core, ledger, payment_id);
      return { file: r.file, status: r.status, refusal: r.refusal ?? null, message: r.message, payment_id: r.paymentId ?? null, added: r.added };
    },

    'cosigner.open': async ({ text }) => {
      const { request, verified, outputs, params } = openSigningRequest(text);
      return {
        request_id: request.request_id,
        payment_hash: request.payment_hash,
        coin: request.coin,
        network: request.network,
        wallet_name: request.wallet.name,
        m: request.wallet.m,
        cosigners: request.wallet.cosigners.map((c) => c.name),
        inputs: verified.inputs.map((i) => ({ index: i.index, amount: i.amount, path: i.path })),
        outputs: outputs.map((o, i) => ({ ...o, path: request.outputs[i]?.path ?? null })),
        miners_fee: verified.totalInput - verified.totalOutput,
        total_input_value: verified.totalInput,
        created_at: request.created_at,
        unit: unitOf(request.coin, request.network, params.decimals),
      };
    },

    'cosigner.sign': async ({ text, secret, passphrase }) => {
      const signed = signRequest(text, softwareKeyFrom(secret, passphrase));
      const id = signed.opened.request.request_id;
      return { file_name: `signature-${fileSafe(signed.signer)}-${id.slice(0, 8)}.json`, text: signed.file, signer: signed.signer };
    },
  };
}


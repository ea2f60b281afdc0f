import { useCallback, useEffect, useState } from 'react';
import type { CosignerView, PaymentSummary, Unit, UnspentOutput, WalletDetail } from '../../../main/bridge/contract.ts';
import { href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { CopyButton } from '../components/CopyButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FundsCard } from '../components/FundsCard.tsx';
import { HistoryTable } from '../components/HistoryTable.tsx';
import { InlineLabel } from '../components/InlineLabel.tsx';
import { useWalletLabels, type WalletLabels } from '../labels.ts';
import { StuckDeposits } from '../components/StuckDeposits.tsx';
import { RescanAction } from '../components/RescanAction.tsx';
import { amount, payee, shortId, when } from '../format.ts';
import { NotFinalNotice, ProvisionalBadge, ProvisionalNotice, ScanNotice, scanWords, useDeskRevision, useSync } from '../sync.tsx';
import { Alert, Amount, Card, Loading, PageHead, StateBadge, download, message, useAction, useLoad } from '../ui.tsx';
import { WalletBooks } from './WalletBooks.tsx';
import { DeviceSelect, QrShowDialog } from '../components/QrDialogs.tsx';
import { SIGNER_DEVICE_NAMES, type SignerDevice } from '../../../shared/api/signer-devices.ts';
import { VaultPaths, VaultWarning } from './VaultPaths.tsx';
import { WalletLabelsFile } from './WalletLabelsFile.tsx';
import { WalletApprovals } from './WalletApprovals.tsx';

/** Each payment as a treasurer recognises it: whom it pays, how much, and where it stands; the whole row opens it. */
const SCRIPT_LABEL = { p2wsh: 'native segwit (P2WSH)', 'p2sh-p2wsh': 'nested segwit (P2SH-P2WSH)', p2sh: 'legacy P2SH' } as const;

export function PaymentsTable({ payments, unitOf }: { payments: PaymentSummary[]; unitOf?: (p: PaymentSummary) => Unit }) {
  return (
    <DataTable
      empty="No payments yet."
      rowTestId="payment-row"
      rows={payments}
      rowKey={(p) => p.id}
      rowHref={(p) => href.payment(p.id)}
      columns={[
        {
          head: 'Pays',
          rowHeader: true,
          title: (p) => `payment ${p.id} to ${payee(p)}`,
          cell: (p) => (
            <>
              <a href={href.payment(p.id)} className={`${p.recipients > 1 ? '' : 'mono '}small address-cell`} aria-label={`Payment of ${amount(p.amount, unitOf?.(p) ?? p.unit)} to ${payee(p)}`}>
                {payee(p)}
              </a>
              {p.purpose && (
                <div className="purpose" data-testid="payment-purpose">
                  {p.purpose}
                </div>
              )}
              {p.role && (
                <div className="small payment-role" data-testid="payment-role">
                  {p.role}
                </div>
              )}
              <div className="muted small">from {p.wallet_name}</div>
            </>
          ),
        },
        { head: 'Amount', num: true, cell: (p) => <Amount units={p.amount} unit={unitOf?.(p) ?? p.unit} /> },
        { head: 'State', cell: (p) => (p.replaced ? <span className="badge badge-replaced">Replaced</span> : <StateBadge state={p.state} />) },
        {
          head: 'Signatures',
          cell: (p) => (
            <span data-testid="payment-signatures">
              {p.signatures}
              {p.path.recovery > 0 && <div className="muted small">{p.path.name}</div>}
            </span>
          ),
        },
        { head: 'Updated', className: 'small', cell: (p) => when(p.updated_at) },
      ]}
    />
  );
}

function Receive({ walletId, labels }: { walletId: string; labels: WalletLabels }) {
  const addr = useLoad(() => call('wallets.receiveAddress', { wallet_id: walletId }), [walletId], 15_000);
  return (
    <Card title="Receive">
      {addr.error && <Alert>{addr.error}</Alert>}
      {!addr.data && !addr.error && <Loading what="the next unused address" />}
      {addr.data && (
        <div className="receive">
          <img src={addr.data.qr_data_url} alt={`QR code of ${addr.data.uri}`} width={168} height={168} />
          <div>
            <p className="muted small">Next unused address (path {addr.data.path} below each xpub)</p>
            <p className="mono address" data-testid="receive-address">
              {addr.data.address}
            </p>
            <p className="small">
              <InlineLabel value={labels.of('addr', addr.data.address)} onSave={(l) => labels.set('addr', addr.data!.address, l)} what={`address ${addr.data.address}`} testId="receive-label" placeholder="Add a label (who pays here, what for)" />
            </p>
            <CopyButton text={addr.data.address} />
            <CheckOnLedger walletId={walletId} path={addr.data.path} />
          </div>
        </div>
      )}
    </Card>
  );
}

/** Before a payer uses the address: the co-signer's Ledger derives it itself and shows it. */
function CheckOnLedger({ walletId, path }: { walletId: string; path: string }) {
  const action = useAction();
  const [shown, setShown] = useState<{ address: string; cosigner: string } | null>(null);
  const [chain, index] = path.split('/').map(Number);
  const check = () =>
    action.run(async () => {
      setShown(null);
      setShown(await call('ledger.showAddress', { wallet_id: walletId, change: chain === 1, index: index ?? 0 }));
    });
  return (
    <div className="ledger-check">
      <button type="button" onClick={() => void check()} disabled={action.busy} data-testid="check-ledger">
        {action.busy ? 'Compare with the address on the Ledger…' : 'Check on Ledger'}
      </button>
      {action.error && <Alert>{action.error}</Alert>}
      {shown && (
        <Alert kind="success">
          <span data-testid="ledger-address-ok">
            {shown.cosigner}'s Ledger derived {shown.address} itself and showed it on its screen: it is this wallet's address.
          </span>
        </Alert>
      )}
    </div>
  );
}

const SETUP_FORMATS = [
  { format: 'bsms', label: 'BSMS record', hint: 'BIP129: Coldcard, Nunchuk, Sparrow' },
  { format: 'descriptor', label: 'Descriptor', hint: 'Sparrow, Bitcoin Core, Electrum' },
  { format: 'caravan', label: 'Caravan', hint: 'Bitcoin wallets only' },
  { format: 'coldcard', label: 'Coldcard file', hint: 'Coldcard, Nunchuk, Electrum' },
  { format: 'specter', label: 'Specter file', hint: 'Specter Desktop' },
] as const;

/** The co-signers whose key was added without its derivation path (stored as the bare "m"). */
const pathUnknown = (w: WalletDetail): string[] => w.cosigners.filter((c) => c.derivation_path === 'm').map((c) => c.name);

/** The wallet as other multisig wallets import it (keys in this wallet's order). */
function ExportSetup({ walletId, coin, sortKeys, noPath, cosigners }: { walletId: string; coin: string; sortKeys: boolean; noPath: string[]; cosigners: CosignerView[] }) {
  const [error, setError] = useState<string | null>(null);
  // Caravan is offered for the coins whose row says Caravan reads them (Bitcoin only).
  const coins = useLoad(() => call('coins.list', {}), []);
  const caravan = coins.data?.find((c) => c.coin === coin)?.caravan ?? false;
  const save = async (format: (typeof SETUP_FORMATS)[number]['format']) => {
    setError(null);
    try {
      const f = await call('wallets.exportSetup', { wallet_id: walletId, format });
      download(f.file_name, f.text);
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <Card title="Set up other wallets">
      <p className="muted small">Co-signers who use another multisig wallet import one of these to watch this wallet and sign its PSBTs.</p>
      {noPath.length > 0 && (
        <div className="alert alert-warning" role="note" data-testid="export-setup-no-path">
          The derivation path of {noPath.join(', ')}&apos;s key is unknown: it was added without one. These files give that key with its fingerprint and no path, so a hardware wallet
          may not recognise it as its own and refuse to sign. Ask {noPath.length === 1 ? 'its holder' : 'their holders'} for the path their device uses before handing these files out.
        </div>
      )}
      <ul className="plain">
        {SETUP_FORMATS.filter((f) => f.format !== 'caravan' || caravan).map((f) => {
          // A Coldcard always sorts the keys (BIP67): for keys in the co-signers' order it would derive other addresses.
          const never = f.format === 'coldcard' && !sortKeys;
          return (
            <li key={f.format}>
              <button type="button" onClick={() => void save(f.format)} disabled={never} data-testid={`export-setup-${f.format}`}>
                {f.label}
              </button>{' '}
              <span className="muted small" data-testid={`export-setup-${f.format}-hint`}>
                {never ? "Not for this wallet: a Coldcard always sorts the keys (BIP67), and this wallet keeps them in the co-signers' order, so a Coldcard would show other addresses. Use the BSMS record or the descriptor." : f.hint}
              </span>
            </li>
          );
        })}
      </ul>
      {error && <Alert>{error}</Alert>}
      <RegisterByQr walletId={walletId} cosigners={cosigners} />
    </Card>
  );
}

/** The wallet registered on an air-gapped signer by QR, in the code its device reads (issue 34). */
function RegisterByQr({ walletId, cosigners }: { walletId: string; cosigners: CosignerView[] }) {
  const [open, setOpen] = useState(false);
  // Preselected: the first co-signer's device that is said; every device is still offered.
  const said = cosigners.find((c) => c.device);
  const [chosen, setChosen] = useState<SignerDevice | null>(null);
  const device: SignerDevice = chosen ?? said?.device ?? 'keystone';
  // The devices that read descriptors take its text (the default) or ur:crypto-output.
  const readsDescriptors = device === 'seedsigner' || device === 'krux' || device === 'other';
  const [code, setCode] = useState<'text' | 'crypto-output'>('text');
  const shownCode = readsDescriptors ? code : 'text';
  const load = useCallback((o: { density: 'high' | 'low' }) => call('qr.registration', { wallet_id: walletId, device, density: o.density, code: shownCode }), [walletId, device, shownCode]);
  return (
    <div className="register-qr">
      <button type="button" onClick={() => setOpen(true)} data-testid="register-qr">
        Register on a QR signer…
      </button>{' '}
      <span className="muted small">so the device shows change as change and refuses inputs that are not this wallet&apos;s.</span>
      {open && (
        <QrShowDialog title="Register the wallet on the signer" about="On the signer, choose to import a multisig wallet by QR, then hold it to this screen." load={load} formats={false} onClose={() => setOpen(false)}>
          <DeviceSelect label="The signer's device" device={device} onChange={setChosen} testId="qr-device" />
          {readsDescriptors && (
            <div className="qr-controls">
              <fieldset>
                <legend>Code</legend>
                <label>
                  <input type="radio" name="qr-registration-code" checked={code === 'text'} onChange={() => setCode('text')} data-testid="qr-code-text" /> The descriptor as text (what {SIGNER_DEVICE_NAMES[device]} reads first)
                </label>
                <label>
                  <input type="radio" name="qr-registration-code" checked={code === 'crypto-output'} onChange={() => setCode('crypto-output')} data-testid="qr-code-crypto-output" /> ur:crypto-output (receive branch 0/*)
                </label>
              </fieldset>
            </div>
          )}
          {chosen === null && said?.device && (
            <p className="muted small" data-testid="qr-device-preselected">
              Preselected: {said.name}&apos;s {SIGNER_DEVICE_NAMES[said.device]}, as said under Co-signers.
            </p>
          )}
        </QrShowDialog>
      )}
    </div>
  );
}

export function WalletDetailScreen({ id }: { id: string }) {
  const revision = useDeskRevision();
  const [scanning, setScanning] = useState(false);
  // Every second while its addresses are being found (the count moves), else every 4 s.
  const wallet = useLoad(() => call('wallets.get', { wallet_id: id }), [id, revision], scanning ? 1_000 : 4_000);
  const scan = wallet.data?.scan ?? null;
  useEffect(() => setScanning(scan !== null), [scan !== null]);
  // History and outputs load again as soon as the balance moves (or the walk finds more), so they never lag it.
  const funds = wallet.data?.funds;
  const moved = `${funds?.balance ?? ''}/${funds?.unconfirmed_balance ?? ''}/${scan?.checked ?? 'done'}`;
  const history = useLoad(() => call('wallets.history', { wallet_id: id, limit: 50 }), [id, moved], 4_000);
  const unspent = useLoad(() => call('wallets.unspent', { wallet_id: id }), [id, moved], 4_000);
  const payments = useLoad(() => call('payments.list', { wallet_id: id }), [id, revision], 4_000);
  // A vault's paths and coins (when each recovery path opens, which are due for a refresh), with its outputs.
  const isVault = wallet.data?.vault ?? false;
  const vault = useLoad(() => (isVault ? call('vaults.get', { wallet_id: id }) : Promise.resolve(null)), [id, moved, isVault], 4_000);
  const labels = useWalletLabels(id);
  const { coins } = useSync();
  const w = wallet.data;
  if (wallet.error && !w) return <Alert>{wallet.error}</Alert>;
  if (!w) return <Loading what="the wallet" />;
  // While the coin's index is behind, every figure below is provisional, and a query the service
  // refuses meanwhile (503) shows that progress rather than an error.
  const sync = coins.find((c) => c.coin === w.coin && c.network === w.network);
  const indexing = sync !== undefined && !sync.final ? sync : null;
  if (w.unserved) return <UnservedWallet w={w} />;
  // Every figure of the wallet is provisional by one predicate (figures-final.ts): the index, the
  // desk's address walk and a watching service's scan (said in words below) all done.
  const provisional = w.not_final !== null;
  return (
    <>
      <PageHead
        back={{ href: href.wallets, label: 'Wallets' }}
        title={w.name}
        about={
          <p className="muted" data-testid="wallet-about">
            {w.vault_paths !== null ? `vault: ${w.vault_paths}` : `${w.m}-of-${w.n} multi-signature`} · {w.coin} {w.network} ·{' '}
            <span data-testid="wallet-script">{w.vault ? 'native segwit miniscript (P2WSH)' : `${SCRIPT_LABEL[w.script_type]}${w.sort_keys ? ', keys sorted (BIP67)' : ''}`}</span>
            {!w.vault && <> · co-signers {w.cosigners.map((c) => c.name).join(', ')}</>}
          </p>
        }
        action={
          <a className="button primary" href={href.propose(w.id)} data-testid="propose-link">
            Propose payment
          </a>
        }
      />
      {w.vault && <VaultWarning vault={vault.data} />}
      <div className="grid-2">
        <FundsCard
          title="Balance"
          testId="balance"
          provisional={provisional}
          notice={
            <>
              {indexing ? <ProvisionalNotice sync={indexing} what="The balance" /> : scan ? <ScanNotice scan={scan} what="the balance" /> : w.not_final && <NotFinalNotice why={w.not_final} />}
              {w.watch && (
                <p className={w.watch.state === 'error' || w.watch.state === 'unregistered' ? 'alert alert-error' : 'muted'} role="status" data-testid="watch-status">
                  {w.watch.words}
                </p>
              )}
              {w.watch?.history_limit && (
                <p className="muted" data-testid="watch-history-limit">
                  {w.watch.history_limit}
                </p>
              )}
            </>
          }
          shown={funds ? <Amount units={funds.balance} unit={w.unit} /> : <span className="muted">known once the index catches up</span>}
          usdBalance={funds?.usd_balance ?? 0}
          pending={
            funds &&
            funds.unconfirmed_balance !== 0n && (
              <span data-testid="unconfirmed">
                <Amount units={funds.unconfirmed_balance} unit={w.unit} signed /> unconfirmed
              </span>
            )
          }
        />
        <Receive walletId={w.id} labels={labels} />
      </div>
      <Card title="Payments">{payments.data ? <PaymentsTable payments={payments.data} /> : <Loading what="payments" />}</Card>
      {history.data && <StuckDeposits walletId={w.id} entries={history.data.entries} unit={w.unit} />}
      <Card title="History" actions={provisional ? <ProvisionalBadge /> : undefined}>
        {scan && !indexing && <p className="muted" data-testid="history-scan">Partial: {scanWords(scan)}</p>}
        {history.error && !indexing && <Alert>{history.error}</Alert>}
        {history.error && indexing && <p className="muted">The history is shown once the service's index catches up.</p>}
        {history.data && (
          <HistoryTable
            entries={history.data.entries} unitOf={() => w.unit} empty="No transactions yet. Send funds to the receive address above." testId="history"
            // A payment's purpose labels its transaction until the transaction is given a label of its own (as in the exports).
            label={(e) => <InlineLabel value={labels.of('tx', e.txid) || (e.purpose ?? '')} onSave={(l) => labels.set('tx', e.txid, l)} what={`transaction ${e.txid}`} testId={`tx-label-${e.txid}`} />}
          />
        )}
      </Card>
      <div className="grid-2">
        <Card title="Unspent outputs" actions={provisional ? <ProvisionalBadge /> : undefined}>
          {unspent.data && (
            <DataTable
              empty="None."
              rows={unspent.data}
              rowKey={(u) => `${u.txid}:${u.vout}`}
              columns={[
                {
                  head: 'Output',
                  className: 'mono small',
                  title: (u) => u.address,
                  cell: (u) => (
                    <>
                      {shortId(u.txid)}:{u.vout}
                    </>
                  ),
                },
                {
                  head: 'Label',
                  cell: (u) => <InlineLabel value={labels.of('output', `${u.txid}:${u.vout}`)} onSave={(l) => labels.set('output', `${u.txid}:${u.vout}`, l)} what={`output ${u.txid}:${u.vout}`} testId={`output-label-${u.txid}:${u.vout}`} />,
                },
                { head: 'Path', className: 'mono small', cell: (u) => u.path },
                { head: 'Amount', num: true, cell: (u) => <Amount units={u.amount} unit={w.unit} /> },
                { head: 'Status', className: 'small', cell: (u) => <UnspentStatus walletId={w.id} u={u} onChange={unspent.reload} /> },
              ]}
            />
          )}
        </Card>
        <CosignersCard w={w} />
      </div>
      <WalletApprovals w={w} />
      {w.vault && <VaultPaths walletId={w.id} name={w.name} vault={vault} />}
      <WalletBooks w={w} />
      {labels.error && <Alert>{labels.error}</Alert>}
      <WalletLabelsFile walletId={w.id} onImported={labels.reload} />
      {!w.vault && <ExportSetup walletId={w.id} coin={w.coin} sortKeys={w.sort_keys} noPath={pathUnknown(w)} cosigners={w.cosigners} />}
      <RescanAction wallet={w} />
    </>
  );
}

function CosignersCard({ w }: { w: WalletDetail }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  // Stored at once (and audited): the page reloads with the desk's revision.
  const setDevice = async (position: number, device: SignerDevice | null) => {
    setError(null);
    setBusy(position);
    try {
      await call('wallets.setCosignerDevice', { wallet_id: w.id, position, device });
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(null);
    }
  };
  return (
    <Card title={w.vault ? 'Keys (each path says which sign)' : 'Co-signers'}>
      <ol className="plain">
        {w.cosigners.map((c, position) => (
          <li key={c.xpub} className="cosigner-line">
            <div>
              <strong>{c.name}</strong> <span className="muted small" data-testid="cosigner-path">{c.derivation_path === 'm' ? 'path unknown (the key was added without one)' : c.derivation_path}</span>
              <div className="mono small muted">{shortId(c.xpub)}</div>
            </div>
            <DeviceSelect
              notSaid
              label="Air-gapped signer (QR)"
              device={c.device ?? null}
              onChange={(d) => void setDevice(position, d)}
              disabled={busy !== null}
              testId={`cosigner-device-${position}`}
            />
          </li>
        ))}
      </ol>
      <p className="muted small">The QR dialogs open on the code each device reads: BBQr where every co-signer still to sign uses a Coldcard, UR otherwise. Leave &quot;Not said&quot; for a co-signer who signs by file or on a Ledger.</p>
      {error && <Alert>{error}</Alert>}
    </Card>
  );
}

/** A wallet on a coin or network the service does not serve: named, with why, and the ways on. */
function UnservedWallet({ w }: { w: WalletDetail }) {
  return (
    <>
      <PageHead
        back={{ href: href.wallets, label: 'Wallets' }}
        title={w.name}
        about={
          <p className="muted">
            {w.vault_paths !== null ? `vault: ${w.vault_paths}` : `${w.m}-of-${w.n} multi-signature · co-signers ${w.cosigners.map((c) => c.name).join(', ')}`} · {w.coin} {w.network}
          </p>
        }
      />
      <div className="alert alert-error" role="alert" data-testid="wallet-unserved">
        <strong>This wallet cannot be followed here.</strong> {w.unserved![0]!.toUpperCase() + w.unserved!.slice(1)}. Its keys and payments are kept: point the desk at a service that serves {w.coin} {w.network} in{' '}
        <a href={href.settings}>Settings</a>, or go back to <a href={href.wallets}>Wallets</a>.
      </div>
      <CosignersCard w={w} />
      <ExportSetup walletId={w.id} coin={w.coin} sortKeys={w.sort_keys} noPath={pathUnknown(w)} cosigners={w.cosigners} />
    </>
  );
}

/** Reserved by an unsent payment, or free; frozen outputs are never picked automatically. */
function UnspentStatus({ walletId, u, onChange }: { walletId: string; u: UnspentOutput; onChange: () => void }) {
  const outpoint = `${u.txid}:${u.vout}`;
  const set = (frozen: boolean) => void call('wallets.freezeOutput', { wallet_id: walletId, outpoint, frozen }).then(onChange);
  return (
    <span data-testid={`unspent-status-${outpoint}`}>
      {u.reserved_by !== null ? <a href={href.payment(u.reserved_by)}>spent by an unsent payment</a> : u.frozen ? 'frozen' : 'free'}{' '}
      <button type="button" className="link" onClick={() => set(!u.frozen)} data-testid={`freeze-${outpoint}`}>
        {u.frozen ? 'Unfreeze' : 'Freeze'}
      </button>
    </span>
  );
}

import { useCallback, useState } from 'react';
import type { ImportResult, PaymentDetail } from '../../../main/bridge/contract.ts';
import { href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { InlineLabel } from '../components/InlineLabel.tsx';
import { amount, payee, usd, when } from '../format.ts';
import { ReplacementLinks, StuckPayment } from '../components/StuckPayment.tsx';
import { Alert, Amount, Card, FileDrop, Loading, PaysTable, StateBadge, download, message, useLoad, type PickedFile } from '../ui.tsx';
import { QrScanDialog, QrShowDialog } from '../components/QrDialogs.tsx';


function Signatures({ p }: { p: PaymentDetail }) {
  return (
    <Card title={`Signatures: ${p.signatures}`}>
      <p className="muted small" data-testid="payment-signing-path">
        {p.path.name === 'co-signers'
          ? `Any ${p.path.threshold} of the ${p.path.keys.length} co-signers sign.`
          : `Spent on the ${p.path.words}. ${p.path.threshold === 1 ? `One of ${p.path.keys.join(' or ')} signs` : `${p.path.threshold} of ${p.path.keys.join(', ')} sign`}; the vault's other keys have nothing to sign.`}
      </p>
      <ul className="signers" aria-label="Co-signers">
        {p.cosigners.map((c) => (
          <li key={c.name} className={c.signed ? 'signed' : 'unsigned'} data-testid="signer">
            <span aria-hidden="true">{c.signed ? '✓' : '○'}</span> {c.name} <span className="muted small">{c.signed ? 'signed' : p.signed >= p.required ? 'not needed' : 'not yet'}</span>
          </li>
        ))}
      </ul>
      <table>
        <thead>
          <tr>
            <th scope="col">Input</th>
            <th scope="col" className="num">
              Amount
            </th>
            <th scope="col">Signed</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {p.inputs.map((i) => (
            <tr key={i.input_index}>
              <td>#{i.input_index}</td>
              <td className="num">
                <Amount units={i.amount} unit={p.unit} />
              </td>
              <td>
                <progress max={i.required} value={Math.min(i.signed, i.required)} aria-label={`input ${i.input_index}: ${i.signed} of ${i.required}`} /> {i.signed} of {i.required}
              </td>
              <td>{i.signers.join(', ') || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}

function ImportResults({ results }: { results: ImportResult[] }) {
  return (
    <ul className="results" aria-live="polite" data-testid="import-results">
      {results.map((r, i) => (
        <li key={i} className={`result result-${r.status}`}>
          <strong>{r.status === 'imported' ? 'Imported' : r.status === 'duplicate' ? 'Already imported' : `Refused (${r.refusal ?? 'error'})`}</strong> {r.message}
        </li>
      ))}
    </ul>
  );
}

export function PaymentDetailScreen({ id }: { id: string }) {
  const payment = useLoad(() => call('payments.get', { payment_id: id }), [id], 3_000);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [results, setResults] = useState<ImportResult[] | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [qr, setQr] = useState<'show' | 'scan' | null>(null);
  // The format is preselected from the devices stored for the co-signers still to sign (the wallet's page says them).
  const loadPsbtFrames = useCallback(
    (o: { density: 'high' | 'low'; format?: 'ur' | 'bbqr' }) => call('qr.psbtFrames', { payment_id: id, density: o.density, ...(o.format ? { format: o.format } : {}) }),
    [id],
  );
  // A signed PSBT read by the camera goes through the one import of PSBT files: nothing new is trusted.
  const scanned = (r: { state: 'psbt' | 'key'; name?: string; text?: string }) => {
    setQr(null);
    if (r.state !== 'psbt' || !r.name || r.text === undefined) return;
    const file = { name: r.name, text: r.text };
    void act('import', async () => setResults(await call('payments.importSignatures', { files: [file] })));
  };
  const [reason, setReason] = useState('');
  const p = payment.data;
  const approvals = useLoad(() => call('relay.approvals', { payment_id: id }), [id], 5_000);
  const [relayed, setRelayed] = useState<{ to: 'approvers' | 'cosigners' | 'everyone'; approvals: string } | null>(null);

  const act = async (what: string, f: () => Promise<unknown>) => {
    setError(null);
    setBusy(what);
    try {
      await f();
      payment.reload();
    } catch (err) {
      setError(message(err));
      payment.reload();
    } finally {
      setBusy(null);
    }
  };
  const exportRequest = () =>
    act('export', async () => {
      const f = await call('payments.exportRequest', { payment_id: id });
      download(f.file_name, f.text);
    });
  const relayRequest = () =>
    act('relay', async () => {
      const sent = await call('relay.sendRequest', { payment_id: id });
      setRelayed(sent);
      approvals.reload();
    });
  const exportPsbt = () =>
    act('export', async () => {
      const f = await call('payments.exportPsbt', { payment_id: id });
      download(f.file_name, f.text, f.encoding);
    });
  const importFiles = (files: PickedFile[]) =>
    act('import', async () => {
      setResults(await call('payments.importSignatures', { files }));
    });

  // A co-signer at the desk signs on their Ledger; the device's signatures are verified like a file's.
  const signOnLedger = () =>
    act('ledger', async () => {
      setResults([await call('ledger.signPayment', { payment_id: id })]);
    });

  if (payment.error && !p) return <Alert>{payment.error}</Alert>;
  if (!p) return <Loading what="the payment" />;
  const awaiting = p.state === 'awaiting_signatures';
  return (
    <>
      <div className="page-head">
        <div>
          <a className="back" href={href.wallet(p.wallet_id)}>
            ← {p.wallet_name}
          </a>
          <h1>
            {p.replacement.kind === 'cpfp' ? (
              <>
                Speed-up of <Amount units={p.amount} unit={p.unit} />
              </>
            ) : (
              <>
                Payment of <Amount units={p.amount} unit={p.unit} />
              </>
            )}
          </h1>
          {p.role && (
            <p className="small payment-role" data-testid="payment-role">
              {p.role}
            </p>
          )}
          <p className={`${p.recipients > 1 ? '' : 'mono '}small muted`} data-testid="payment-payee">
            to {p.recipients > 1 ? `${payee(p)}, ${amount(p.amount, p.unit)} in all (each in the outputs below)` : p.to}
          </p>
          <p className="purpose">
            <span className="muted small">Purpose: </span>
            <InlineLabel
              value={p.purpose ?? ''}
              onSave={async (label) => {
                await call('labels.set', { wallet_id: p.wallet_id, type: 'payment', ref: p.id, label });
                payment.reload();
              }}
              what="this payment"
              testId="payment-purpose-edit"
              placeholder="Say what it is for"
            />
          </p>
        </div>
        <StateBadge state={p.state} />
      </div>
      <div className={`explain explain-${p.state}`} role="status" data-testid="payment-state" data-state={p.state}>
        {p.explanation}
        <ReplacementLinks p={p} />
      </div>
      {error && <Alert>{error}</Alert>}
      <StuckPayment p={p} />
      <div className="grid-2">
        <Card title="What it pays">
          <PaysTable outputs={p.outputs} minersFee={p.miners_fee} spent={p.total_input_value} unit={p.unit} spentLabel="Inputs spent" testId="payment-outputs" size={{ vsize: p.vsize, feeRate: p.fee_rate }} />
          <p className="small muted" data-testid="fee-summary">
            Miners&apos; fee {amount(p.miners_fee, p.unit)} ({p.fee_usd === null ? 'no USD rate from the service' : usd(p.fee_usd)}): {p.fee_share} of the payment, {p.fee_rate} {p.unit.smallest}/vB over {p.vsize} vbytes {p.size_signed ? '(as signed)' : '(estimated with the largest signatures)'};{' '}
            {p.replaceable ? 'replaceable (BIP125)' : 'not replaceable'}.
          </p>
          <dl className="facts">
            <dt>Proposed</dt>
            <dd>{when(p.created_at)}</dd>
            <dt>Payment hash</dt>
            <dd className="mono small">{p.payment_hash}</dd>
            {approvals.data && (approvals.data.needed > 0 || approvals.data.entries.length > 0) && (
              <>
                <dt>Approvals</dt>
                <dd data-testid="payment-approvals">
                  {approvals.data.words}
                  {approvals.data.entries.map((e) => (
                    <div key={`${e.approver}-${e.at}`} className="small muted">
                      {e.approver} {e.decision === 'approve' ? 'approved' : 'declined'} {when(e.at)}, signed by their device{e.binding === 'code' ? ' (verified by code)' : e.binding === 'key' ? ' (bound by key)' : ''}
                      {e.reason ? `: ${e.reason}` : ''}
                    </div>
                  ))}
                </dd>
              </>
            )}
            {p.txid && (
              <>
                <dt>Transaction</dt>
                <dd className="mono small" data-testid="txid">
                  {p.txid}
                </dd>
              </>
            )}
          </dl>
        </Card>
        <Signatures p={p} />
      </div>
      {awaiting && (
        <Card title="Collect signatures">
          <ol className="steps">
            <li>
              <button type="button" onClick={() => void exportRequest()} disabled={busy !== null} data-testid="export-request">
                Export signing request
              </button>{' '}
              <span className="muted">and give the file to the co-signers (they sign it in co-signer mode or on their own device).</span>
            </li>
            <li>
              Or through the relay, to the wallet's room:{' '}
              <button type="button" onClick={() => void relayRequest()} disabled={busy !== null} data-testid="relay-request">
                Send by relay
              </button>{' '}
              <span className="muted" data-testid="relay-approvals">
                Approvals: {approvals.data?.words ?? '…'}
              </span>
              {relayed && (
                <span data-testid="relay-sent">
                  {' '}
                  {relayed.to === 'approvers'
                    ? approvals.data?.clear
                      ? 'Approved: the desk sent the request on to the co-signers by relay.'
                      : `Sent to the approvers first (${relayed.approvals}).`
                    : relayed.to === 'cosigners'
                      ? 'Approved: sent to the co-signers by relay.'
                      : 'Sent to the co-signers and approvers by relay.'}
                </span>
              )}
            </li>
            <li>
              Co-signers on Sparrow, Electrum, Caravan or a Coldcard:{' '}
              <button type="button" onClick={() => void exportPsbt()} disabled={busy !== null} data-testid="export-psbt">
                Export PSBT
              </button>{' '}
              <span className="muted">(a standard partially signed transaction; they sign it in their wallet and send it back).</span>
            </li>
            <li>
              Import the signature files or signed PSBTs they send back, several at once if you like:
              <FileDrop label="Choose signature files or PSBTs" hint="or drop them here" multiple accept=".json,.psbt,.txt,application/json" onFiles={(f) => void importFiles(f)} testId="import-files" />
            </li>
            <li>
              Co-signers on an air-gapped signer (Keystone, Passport, Jade, SeedSigner, Krux, Coldcard Q):{' '}
              <button type="button" onClick={() => setQr('show')} disabled={busy !== null} data-testid="show-psbt-qr">
                Show PSBT as QR
              </button>{' '}
              <button type="button" onClick={() => setQr('scan')} disabled={busy !== null} data-testid="scan-psbt-qr">
                Scan signed PSBT
              </button>{' '}
              <span className="muted">(the signer reads the animated code, signs, and shows its signed PSBT to this computer&apos;s camera).</span>
            </li>
            <li>
              A co-signer here with a Ledger:{' '}
              <button type="button" onClick={() => void signOnLedger()} disabled={busy !== null} data-testid="sign-ledger">
                {busy === 'ledger' ? 'Check and approve on the Ledger…' : 'Sign on Ledger'}
              </button>{' '}
              <span className="muted">(plug it in, unlock it and open the coin's app; the desk checks every signature it returns).</span>
            </li>
          </ol>
        </Card>
      )}
      {results && <ImportResults results={results} />}
      {qr === 'show' && (
        <QrShowDialog
          title="Show the PSBT to the signer"
          about="The signer's camera reads the frames in any order; a frame it misses comes round again. The code follows the co-signers' devices, as said on the wallet's page: change it here if the signer asks for the other."
          load={loadPsbtFrames}
          formats
          onClose={() => setQr(null)}
        />
      )}
      {qr === 'scan' && <QrScanDialog title="Scan the signed PSBT" expect="psbt" paymentId={id} onDone={scanned} onClose={() => setQr(null)} />}
      <div className="form-actions">
        {(p.state === 'ready' || awaiting) && (
          <button type="button" className="primary" onClick={() => void act('submit', () => call('payments.submit', { payment_id: id }))} disabled={p.state !== 'ready' || busy !== null} data-testid="submit">
            {busy === 'submit' ? 'Submitting…' : 'Submit payment'}
          </button>
        )}
        {(awaiting || p.state === 'ready') && !cancelling && (
          <button type="button" className="danger" onClick={() => setCancelling(true)}>
            Cancel payment…
          </button>
        )}
      </div>
      {cancelling && (
        <form
          className="card"
          onSubmit={(e) => {
            e.preventDefault();
            void act('cancel', () => call('payments.cancel', { payment_id: id, reason })).then(() => setCancelling(false));
          }}
        >
          <label>
            Why is this payment cancelled? (kept in the audit log)
            <input value={reason} onChange={(e) => setReason(e.target.value)} required autoFocus />
          </label>
          <div className="form-actions">
            <button type="submit" className="danger">
              Cancel the payment
            </button>
            <button type="button" onClick={() => setCancelling(false)}>
              Keep it
            </button>
          </div>
        </form>
      )}
    </>
  );
}

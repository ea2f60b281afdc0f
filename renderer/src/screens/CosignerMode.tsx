import { useState, type FormEvent } from 'react';
import type { OpenedRequestView, SignedFile } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { TextField } from '../components/form.tsx';
import { amount, usd, when } from '../format.ts';
import { Alert, Card, FileDrop, PaysTable, download, message, useAction, type PickedFile } from '../ui.tsx';

export function CosignerMode() {
  const [file, setFile] = useState<PickedFile | null>(null);
  const [opened, setOpened] = useState<OpenedRequestView | null>(null);
  const [secret, setSecret] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [signed, setSigned] = useState<SignedFile | null>(null);
  const { busy, error, setError, run } = useAction();

  const open = async (files: PickedFile[]) => {
    const f = files[0]!;
    setError(null);
    setSigned(null);
    setOpened(null);
    setFile(f);
    try {
      setOpened(await call('cosigner.open', { text: f.text }));
    } catch (err) {
      setError(`${f.name}: ${message(err)}`);
    }
  };
  const sign = (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    return run(async () => {
      try {
        const s = await call('cosigner.sign', { text: file.text, secret, ...(passphrase ? { passphrase } : {}) });
        setSigned(s);
        download(s.file_name, s.text);
      } finally {
        // The key is used for one call and forgotten, also on failure.
        setSecret('');
        setPassphrase('');
      }
    });
  };

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Co-signer mode</h1>
          <p className="muted">
            Open a signing request you were sent, check what it pays, and sign it with your extended private key or your recovery words. The request is verified offline: the transaction is decoded and every address and hash re-derived from
            the wallet's xpubs. Your key is used in memory for this one signature and never stored.
          </p>
        </div>
      </div>
      <Card title="1. Open the signing request">
        <FileDrop label="Choose a signing-request file" hint="or drop it here" multiple={false} onFiles={(f) => void open(f)} testId="request-file" />
        {file && !opened && !error && <p className="muted">Checking {file.name}…</p>}
      </Card>
      {error && <Alert>{error}</Alert>}
      {opened && (
        <>
          <Card title={`2. Check what it pays (wallet "${opened.wallet_name}", ${opened.m} of ${opened.cosigners.length})`}>
            <Alert kind="success">Verified offline: the transaction matches the request, its inputs are the wallet's, and the change returns to the wallet.</Alert>
            <PaysTable
              testId="request-outputs"
              outputs={opened.outputs}
              minersFee={opened.miners_fee}
              spent={opened.total_input_value}
              unit={opened.unit}
              spentLabel={
                <>
                  Spending
                  <div className="muted small address-cell">
                    {opened.inputs.length} input{opened.inputs.length === 1 ? '' : 's'} of the wallet
                  </div>
                </>
              }
            />
            <dl className="facts">
              <dt>Purpose</dt>
              <dd data-testid="request-purpose">{opened.label === null ? <span className="muted">the request gives none</span> : <>“{opened.label}” <span className="muted small">(as the treasurer wrote it; it is not part of what you sign)</span></>}</dd>
              <dt>Leaving the wallet</dt>
              <dd data-testid="request-leaving">
                {amount(opened.leaving.amount, opened.unit)}, fee included: {opened.leaving.usd === null ? 'no USD rate from the service' : `${usd(opened.leaving.usd)} at today's rate`}
              </dd>
              <dt>When it can be mined</dt>
              <dd data-testid="request-locks">{opened.locks.length === 0 ? 'as soon as it is sent (no time lock)' : opened.locks.map((l) => <div key={l}>{l}</div>)}</dd>
              <dt>Co-signers</dt>
              <dd>{opened.cosigners.join(', ')}</dd>
              <dt>Requested</dt>
              <dd>{when(opened.created_at)}</dd>
              <dt>Payment hash</dt>
              <dd className="mono small">{opened.payment_hash}</dd>
            </dl>
          </Card>
          <Card title="3. Sign">
            <form onSubmit={(e) => void sign(e)}>
              <TextField
                label="Your extended private key (xprv, or the master key above your xpub), or your recovery words (BIP39)"
                type="password"
                value={secret}
                onChange={setSecret}
                autoComplete="off"
                spellCheck={false}
                required
                className="mono"
                data-testid="xprv"
              />
              <TextField label="Passphrase of the recovery words (only if you set one)" type="password" value={passphrase} onChange={setPassphrase} autoComplete="off" spellCheck={false} data-testid="passphrase" />
              <div className="form-actions">
                <button type="submit" className="primary" disabled={busy} data-testid="sign">
                  {busy ? 'Signing…' : 'Sign and save signature file'}
                </button>
              </div>
            </form>
            {signed && (
              <Alert kind="success">
                Signed as {signed.signer}. Saved <span className="mono">{signed.file_name}</span>: send it back to the treasurer.{' '}
                <button type="button" className="link" onClick={() => download(signed.file_name, signed.text)}>
                  Save again
                </button>
              </Alert>
            )}
          </Card>
        </>
      )}
    </>
  );
}

import { useState, type FormEvent } from 'react';
import { go, href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { SubmitActions, TextField } from '../components/form.tsx';
import { Alert, Card, useAction } from '../ui.tsx';

type Source = 'mnemonic' | 'private_key' | 'generate' | 'ledger';

const SOURCES: { value: Source; label: string; hint: string }[] = [
  { value: 'mnemonic', label: 'Recovery words', hint: "12 or 24 BIP39 words; the key is derived at m/44'/60'/0'/0/0 as Ethereum wallets do." },
  { value: 'private_key', label: 'Private key', hint: '64 hex digits.' },
  { value: 'generate', label: 'New key made by this desk', hint: 'A fresh 24-word key that only this desk holds; it is never shown, so keep only small amounts on it.' },
  { value: 'ledger', label: 'Ledger (address only)', hint: 'The desk shows balances and history; signing happens on the Ledger.' },
];

export function AccountsNew() {
  const [name, setName] = useState('');
  const [source, setSource] = useState<Source>('mnemonic');
  const [words, setWords] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [address, setAddress] = useState('');
  const [path, setPath] = useState("m/44'/60'/0'/0/0");
  const { busy, error, run } = useAction();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    return run(async () => {
      try {
        const a = await call(
          'accounts.create',
          source === 'ledger'
            ? { kind: 'ledger', name, address, derivation_path: path }
            : {
                kind: 'software',
                name,
                key:
                  source === 'generate'
                    ? { source: 'generate' }
                    : source === 'mnemonic'
                      ? { source: 'mnemonic', words, ...(passphrase ? { passphrase } : {}) }
                      : { source: 'private_key', private_key: privateKey },
              },
        );
        go(href.account(a.id));
      } finally {
        // Secrets leave the page as soon as they have been handed to the desk.
        setWords('');
        setPassphrase('');
        setPrivateKey('');
      }
    });
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <div className="page-head">
        <div>
          <a className="back" href={href.accounts}>
            ← Ether accounts
          </a>
          <h1>New Ether account</h1>
          <p className="muted">A key typed here is kept by the desk (never shown again, never sent to the service) and used only when you confirm a send.</p>
        </div>
      </div>
      <Card>
        <TextField label="Account name" value={name} onChange={setName} required maxLength={80} data-testid="account-name" />
        <fieldset className="choices stacked">
          <legend className="sr-only">Where the key comes from</legend>
          {SOURCES.map((s) => (
            <label key={s.value} className="inline">
              <input type="radio" name="source" value={s.value} checked={source === s.value} onChange={() => setSource(s.value)} data-testid={`source-${s.value}`} />
              <span>
                <strong>{s.label}</strong> <span className="muted small">{s.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {source === 'mnemonic' && (
          <div className="grid-2">
            <label>
              Recovery words
              <textarea value={words} onChange={(e) => setWords(e.target.value)} required rows={3} spellCheck={false} autoComplete="off" className="mono" data-testid="account-words" />
            </label>
            <TextField label="Passphrase (optional)" type="password" value={passphrase} onChange={setPassphrase} autoComplete="off" />
          </div>
        )}
        {source === 'private_key' && (
          <TextField label="Private key (hex)" type="password" value={privateKey} onChange={setPrivateKey} required autoComplete="off" className="mono" data-testid="account-private-key" />
        )}
        {source === 'ledger' && (
          <div className="grid-2">
            <TextField label="Address on the Ledger" value={address} onChange={setAddress} required spellCheck={false} className="mono" placeholder="0x…" data-testid="account-address" />
            <TextField label="Derivation path" value={path} onChange={setPath} required className="mono" />
          </div>
        )}
      </Card>
      {error && <Alert>{error}</Alert>}
      <SubmitActions label="Add account" busyLabel="Adding…" busy={busy} testId="create-account" cancelHref={href.accounts} />
    </form>
  );
}

// Settings: the chains the embedded service reads (ChainSettings.tsx), and which service the desk talks to. A remote service is tested before it is saved, and
// the API key field is emptied at once: the key never comes back from the desk.
import { useEffect, useState, type FormEvent } from 'react';
import type { BridgeInput, MaxFeeView, ServiceSettings } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { TextField } from '../components/form.tsx';
import { ChainSettings } from './ChainSettings.tsx';
import { Alert, Card, Loading, useAction, useLoad } from '../ui.tsx';
import { announceServiceChanged, onServiceChanged } from '../sync.tsx';

type FeeCoin = BridgeInput<'settings.maxFee'>['coin'];

function Current({ settings }: { settings: ServiceSettings }) {
  // Chains saved above restart the service: look again then, not only every 10 s.
  const [changes, setChanges] = useState(0);
  useEffect(() => onServiceChanged(() => setChanges((n) => n + 1)), []);
  const status = useLoad(() => call('service.status', {}), [settings.mode, settings.service_url, changes], 10_000);
  const s = status.data;
  return (
    <Card title="Current connection">
      <dl className="facts" data-testid="current-service">
        <dt>Service</dt>
        <dd data-testid="service-mode" data-mode={settings.mode}>
          {settings.mode === 'remote' ? 'Remote deployment' : settings.embedded_started_here ? 'Embedded: started by this desk on 127.0.0.1' : 'On 127.0.0.1, started beside this desk (not by it)'}
        </dd>
        <dt>Address</dt>
        <dd className="mono">{settings.service_url}</dd>
        <dt>API key</dt>
        <dd data-testid="key-state">{settings.mode === 'embedded' ? 'none needed (the embedded service listens on this computer only)' : settings.key_stored ? 'a key is stored' : 'no key is stored'}</dd>
        <dt>Key storage</dt>
        <dd data-testid="key-storage-current">{settings.key_storage.problem ? `unavailable: ${settings.key_storage.problem}` : settings.key_storage.description}</dd>
        <dt>Status</dt>
        <dd data-testid="settings-status" className={s ? (s.ok ? 'status-ok' : 'status-bad') : ''}>
          {status.error ?? (s ? (s.ok ? `connected; ${s.coins.length ? s.coins.map((c) => `${c.coin} ${c.network} at block ${c.indexed_height ?? '—'}`).join(', ') : 'no coins configured'}` : s.message) : 'checking…')}
        </dd>
      </dl>
    </Card>
  );
}

export function Settings() {
  const loaded = useLoad(() => call('settings.get', {}), []);
  const [saved, setSaved] = useState<ServiceSettings | null>(null);
  const [mode, setMode] = useState<'embedded' | 'remote' | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [key, setKey] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const settings = saved ?? loaded.data;
  if (loaded.error) return <Alert>{loaded.error}</Alert>;
  if (!settings) return <Loading what="the settings" />;
  const chosen = mode ?? settings.mode;
  const baseUrl = url ?? settings.remote_url ?? '';
  const storage = settings.key_storage;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    return run(async () => {
      try {
        const next = await call('settings.setService', chosen === 'embedded' ? { mode: 'embedded' } : { mode: 'remote', base_url: baseUrl, api_key: key });
        setSaved(next);
        setMode(null);
        setDone(next.mode === 'embedded' ? 'The desk now uses the embedded service.' : `Connected to ${next.service_url}; the key is stored.`);
        announceServiceChanged();
      } finally {
        // The key leaves the page whatever happened: typed once, never shown again.
        setKey('');
      }
    });
  };

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Settings</h1>
          <p className="muted">
            The desk talks to a v2 Address &amp; Transaction API service: the one it starts on this computer (embedded), or a remote deployment with an API key. Payments and wallets stay in
            this desk either way.
          </p>
        </div>
      </div>
      {settings.notice && <Alert kind="info">{settings.notice}</Alert>}
      <ChainSettings />
      <Current settings={settings} />
      <form onSubmit={(e) => void submit(e)}>
        <Card title="Change the service">
          <fieldset className="choices">
            <legend className="sr-only">Service</legend>
            <label className="inline">
              <input type="radio" name="mode" value="embedded" checked={chosen === 'embedded'} onChange={() => setMode('embedded')} data-testid="mode-embedded" />
              Embedded service on 127.0.0.1 (no key)
            </label>
            <label className="inline">
              <input type="radio" name="mode" value="remote" checked={chosen === 'remote'} onChange={() => setMode('remote')} data-testid="mode-remote" />
              Remote deployment
            </label>
          </fieldset>
          {chosen === 'remote' && (
            <>
              <TextField label="Base URL" type="url" value={baseUrl} onChange={setUrl} placeholder="https://api.example.com/v2" required data-testid="remote-url" />
              <TextField
                label="API key (sent as X-API-KEY)"
                type="password"
                value={key}
                onChange={setKey}
                autoComplete="off"
                spellCheck={false}
                placeholder={settings.key_stored ? 'a key is stored; type a new one to change it' : 'the key the service operator gave you'}
                required
                data-testid="remote-key"
              />
              <p className="muted small" data-testid="key-storage">
                {storage.problem ? null : `How the key is kept: ${storage.description}.`}
              </p>
              {storage.problem && <Alert>{`The desk cannot store an API key here: ${storage.problem}.`}</Alert>}
            </>
          )}
          {error && <Alert>{error}</Alert>}
          {done && <Alert kind="success">{done}</Alert>}
          <div className="form-actions">
            <button className="primary" type="submit" disabled={busy || (chosen === 'remote' ? storage.problem !== null : settings.mode === 'embedded')} data-testid="save-service">
              {busy ? 'Testing…' : chosen === 'remote' ? 'Test the connection and save' : settings.mode === 'embedded' ? 'The embedded service is in use' : 'Use the embedded service'}
            </button>
            {chosen === 'remote' && <span className="muted small">Only a connection that answers with this key is saved.</span>}
          </div>
        </Card>
      </form>
      <ReplaceableSetting />
      <MaxFeeSetting />
      <VaultWarningSetting />
    </>
  );
}

/** Whether new payments signal BIP125 (on coins whose nodes relay replacements): on by default. */
function ReplaceableSetting() {
  const loaded = useLoad(() => call('settings.setReplaceable', {}), []);
  const [on, setOn] = useState<boolean | null>(null);
  const value = on ?? loaded.data?.replaceable ?? null;
  if (value === null) return null;
  return (
    <Card title="Payments">
      <label className="inline">
        <input
          type="checkbox"
          checked={value}
          onChange={(e) => void call('settings.setReplaceable', { on: e.target.checked }).then((r) => setOn(r.replaceable))}
          data-testid="replaceable-setting"
        />{' '}
        New payments signal replacement (BIP125) where the coin has it, so their fee can be raised later where the service&apos;s node relays replacements. Where it does
        not (Litecoin Core without -mempoolreplacement=1, and on Litecoin mainnet, where most nodes run without it), a slow one is pulled through by a child spending its
        change; Bitcoin Cash, Dash and Zcash payments are final.
      </label>
    </Card>
  );
}

/** How many days before a vault coin's recovery path opens it is flagged for a refresh (default 30). */
function VaultWarningSetting() {
  const loaded = useLoad(() => call('settings.vaultWarning', {}), []);
  const [typed, setTyped] = useState<string | null>(null);
  const [saved, setSaved] = useState<number | null>(null);
  const { busy, refusal, run } = useAction();
  const days = saved ?? loaded.data?.days ?? null;
  if (days === null) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    return run(async () => {
      const r = await call('settings.vaultWarning', { days: typed ?? String(days) });
      setSaved(r.days);
      setTyped(null);
    });
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <Card title="Vaults with recovery paths">
        <p className="muted small">
          A vault&apos;s coin can be moved by its recovery keys alone once its recovery path opens, a number of days after the coin was received. The desk flags such coins this many days ahead on the
          wallet&apos;s page and card, so they can be refreshed (paid back to the vault on the main path, which starts their clock again).
        </p>
        <TextField label="Warn this many days ahead" value={typed ?? String(days)} onChange={setTyped} inputMode="numeric" className="narrow" error={refusal?.message ?? null} errorTestId="vault-warning-error" data-testid="vault-warning-days" />
        {saved !== null && typed === null && (
          <p className="muted small" role="status" data-testid="vault-warning-saved">
            Saved: coins are flagged {saved} days before their recovery path opens.
          </p>
        )}
        <div className="form-actions">
          <button type="submit" disabled={busy || typed === null} data-testid="vault-warning-save">
            Save
          </button>
        </div>
      </Card>
    </form>
  );
}

/**
 * The most the desk proposes in miners' fees for one payment of a coin (any kind: a payment, a batch,
 * a bump, a cancel, a child, a vault refresh), in the coin or in USD. A hurried typo is refused in
 * words at the field; a proposal above the maximum is refused in words where it is made.
 */
function MaxFeeSetting() {
  const coins = useLoad(() => call('coins.list', {}), []);
  const utxo = (coins.data ?? []).filter((c) => c.family === 'utxo');
  const [coin, setCoin] = useState<FeeCoin | null>(null);
  const chosenCoin = coin ?? (utxo[0]?.coin as FeeCoin | undefined) ?? null;
  const loaded = useLoad(() => (chosenCoin ? call('settings.maxFee', { coin: chosenCoin }) : Promise.resolve(null)), [chosenCoin]);
  const [typed, setTyped] = useState<string | null>(null);
  const [unit, setUnit] = useState<'coin' | 'usd' | null>(null);
  const [saved, setSaved] = useState<MaxFeeView | null>(null);
  const { busy, refusal, run } = useAction();
  const current = saved?.coin === chosenCoin ? saved : (loaded.data ?? null);
  if (!chosenCoin || !current) return null;
  const shownUnit = unit ?? current.unit;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    return run(async () => {
      const r = await call('settings.maxFee', { coin: chosenCoin, unit: shownUnit, amount: typed ?? current.amount });
      setSaved(r);
      setTyped(null);
      setUnit(null);
    });
  };
  const reset = () =>
    run(async () => {
      setSaved(await call('settings.maxFee', { coin: chosenCoin, reset: true }));
      setTyped(null);
      setUnit(null);
    });
  return (
    <form onSubmit={(e) => void submit(e)}>
      <Card title="Maximum fee per payment">
        <p className="muted small">
          The desk refuses to propose any payment, batch, fee bump, cancel or child whose miners&apos; fee is above this, whatever the service answers. The default is $100 per payment (0.1 of the
          coin where the service has no USD rate, Bitcoin Core&apos;s own -maxtxfee).
        </p>
        <label>
          Coin
          <select value={chosenCoin} onChange={(e) => { setCoin(e.target.value as FeeCoin); setTyped(null); setUnit(null); }} data-testid="max-fee-coin">
            {utxo.map((c) => (
              <option key={c.coin} value={c.coin}>
                {c.coin}
              </option>
            ))}
          </select>
        </label>
        <p data-testid="max-fee-current">Now: {current.words}.</p>
        <div className="grid-2">
          <TextField label="Maximum miners' fee per payment" value={typed ?? current.amount} onChange={setTyped} inputMode="decimal" error={refusal?.message ?? null} errorTestId="max-fee-error" data-testid="max-fee-amount" />
          <label>
            In
            <select value={shownUnit} onChange={(e) => setUnit(e.target.value === 'usd' ? 'usd' : 'coin')} data-testid="max-fee-unit">
              <option value="coin">{current.ticker}</option>
              <option value="usd">USD</option>
            </select>
          </label>
        </div>
        <div className="form-actions">
          <button type="submit" disabled={busy || (typed === null && unit === null)} data-testid="max-fee-save">
            Save
          </button>
          {!current.is_default && (
            <button type="button" disabled={busy} onClick={() => void reset()} data-testid="max-fee-reset">
              Back to the default
            </button>
          )}
        </div>
      </Card>
    </form>
  );
}

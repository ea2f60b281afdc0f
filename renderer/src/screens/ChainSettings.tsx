// Settings > Chains: per coin, the chain the embedded service reads — the treasurer's own node
// (URL, and its cookie file or a user and password), an Electrum server (host, port, TLS, a pinned
// certificate) or a Blockbook. "Test connection" shows what answered; only a connection that
// answers is saved, and a refusal is shown at the field it concerns.
import { useState, type FormEvent } from 'react';
import type { BridgeInput, ChainsView, ChainTestView, ChainView } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { TextField } from '../components/form.tsx';
import { Alert, Card, Loading, useAction, useLoad, type Refusal } from '../ui.tsx';
import { announceServiceChanged } from '../sync.tsx';

type Choice = BridgeInput<'chains.save'>['choice'];
type Coin = BridgeInput<'chains.save'>['coin'];
type Kind = Choice['kind'];
const NETWORKS = ['mainnet', 'testnet', 'regtest'] as const;
type Network = (typeof NETWORKS)[number];

interface Form {
  coin: Coin;
  network: Network;
  kind: Kind;
  url: string;
  auth: 'cookie' | 'password';
  cookieFile: string;
  username: string;
  password: string;
  host: string;
  port: string;
  tls: boolean;
  pin: boolean;
  pinned: string;
}

const emptyForm = (coin: Coin): Form => ({ coin, network: 'mainnet', kind: 'node', url: '', auth: 'cookie', cookieFile: '', username: '', password: '', host: '', port: '50002', tls: true, pin: false, pinned: '' });

/** The form filled from a saved choice (the password is never sent back: it stays empty). */
function formOf(coin: Coin, c: Choice): Form {
  const f = { ...emptyForm(coin), network: c.network, kind: c.kind };
  switch (c.kind) {
    case 'node':
      return { ...f, url: c.url, auth: c.auth.kind, cookieFile: c.auth.kind === 'cookie' ? c.auth.cookie_file : '', username: c.auth.kind === 'password' ? c.auth.username : '' };
    case 'electrum':
      return { ...f, host: c.host, port: String(c.port), tls: c.tls, pin: c.pinned_sha256 !== null, pinned: c.pinned_sha256 ?? '' };
    case 'blockbook':
      return { ...f, url: c.url };
  }
}

function choiceOf(f: Form): Choice {
  switch (f.kind) {
    case 'node':
      return { kind: 'node', network: f.network, url: f.url, auth: f.auth === 'cookie' ? { kind: 'cookie', cookie_file: f.cookieFile } : { kind: 'password', username: f.username } };
    case 'electrum':
      return { kind: 'electrum', network: f.network, host: f.host, port: Number(f.port.trim() === '' ? NaN : f.port), tls: f.tls, pinned_sha256: f.tls && f.pin ? f.pinned : null };
    case 'blockbook':
      return { kind: 'blockbook', network: f.network, url: f.url };
  }
}

function describe(c: ChainView): string {
  const k = c.choice;
  if (!k) return c.source === 'file' ? 'set in embedded-service.json by the operator' : 'not connected';
  switch (k.kind) {
    case 'node':
      return `own node at ${k.url} (${k.auth.kind === 'cookie' ? `cookie file ${k.auth.cookie_file}` : `user ${k.auth.username}${c.password_stored ? ', password stored' : ', no password stored'}`})`;
    case 'electrum':
      return `Electrum server ${k.host}:${k.port}${k.tls ? (k.pinned_sha256 ? ', TLS, certificate pinned' : ', TLS') : ', plain TCP'}`;
    case 'blockbook':
      return `Blockbook at ${k.url}`;
  }
}

const yesNo = (v: boolean | null, yes: string, no: string, unknown: string) => (v === null ? unknown : v ? yes : no);

function Answered({ a }: { a: ChainTestView }) {
  return (
    <dl className="facts" data-testid="chain-answer">
      <dt>Answered</dt>
      <dd data-testid="chain-answer-software">{a.software ?? 'a server that does not name itself'}</dd>
      <dt>Chain</dt>
      <dd data-testid="chain-answer-chain">{a.chain === null ? 'not said' : `${a.chain}${a.network ? ` (network ${a.network})` : ''}`}</dd>
      <dt>Height</dt>
      <dd data-testid="chain-answer-height">{a.height.toLocaleString('en-US')}</dd>
      <dt>Pruned</dt>
      <dd data-testid="chain-answer-pruned">{yesNo(a.pruned, `yes, blocks from ${a.prune_height ?? '?'} on`, 'no', 'not said')}</dd>
      <dt>Block filters</dt>
      <dd data-testid="chain-answer-filters">{yesNo(a.block_filters, 'on (BIP158)', 'off', 'not said')}</dd>
      <dt>Relays replacements</dt>
      <dd data-testid="chain-answer-replacements">{yesNo(a.relays_replacements, 'yes', 'no', 'cannot be found out from this server')}</dd>
      {a.certificate_sha256 && (
        <>
          <dt>Certificate SHA-256</dt>
          <dd className="mono small" data-testid="chain-answer-certificate">
            {a.certificate_sha256}
          </dd>
        </>
      )}
      {a.notes.length > 0 && (
        <>
          <dt>Also</dt>
          <dd>
            <ul className="plain" data-testid="chain-answer-notes">
              {a.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
  );
}

/** The refusal's field as the form names it (the bridge may say choice.auth.cookie_file). */
const fieldOf = (r: Refusal | null): string | null => r?.field?.split('.').at(-1) ?? null;

function ConnectForm({ initial, coins, onSaved, passwordStored, fromFile }: { initial: Form; coins: Coin[]; onSaved: (v: ChainsView, coin: Coin) => void; passwordStored: (coin: Coin) => boolean; fromFile: (coin: Coin) => boolean }) {
  const [f, setF] = useState<Form>(initial);
  const [answer, setAnswer] = useState<{ of: string; a: ChainTestView } | null>(null);
  const { busy, refusal, run } = useAction();
  const [acting, setActing] = useState<'test' | 'save' | null>(null);
  const set = (patch: Partial<Form>) => setF((x) => ({ ...x, ...patch }));
  const key = JSON.stringify({ ...f, password: f.password });
  const tested = answer?.of === key ? answer.a : null;
  const at = fieldOf(refusal);
  const err = (field: string) => (at === field ? refusal?.message : null);
  const other = refusal && !['url', 'cookie_file', 'username', 'password', 'host', 'port', 'pinned_sha256', 'network'].includes(at ?? '') ? refusal.message : null;
  const input = () => ({ coin: f.coin, choice: choiceOf(f), ...(f.kind === 'node' && f.auth === 'password' && f.password !== '' ? { password: f.password } : {}) });

  const test = () => {
    setActing('test');
    return run(async () => {
      setAnswer(null);
      const a = await call('chains.test', input());
      setAnswer({ of: key, a });
      // A TLS server's certificate, offered for pinning when the treasurer chose to pin.
      if (f.kind === 'electrum' && f.tls && f.pin && f.pinned === '' && a.certificate_sha256) set({ pinned: a.certificate_sha256 });
    });
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    setActing('save');
    return run(async () => {
      const v = await call('chains.save', input());
      set({ password: '' });
      onSaved(v, f.coin);
    });
  };

  return (
    <form onSubmit={(e) => void save(e)} data-testid="chain-form">
      <div className="grid-3">
        <label>
          Coin
          <select value={f.coin} onChange={(e) => setF({ ...emptyForm(e.target.value as Coin), kind: f.kind })} data-testid="chain-coin">
            {coins.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          Network
          <select value={f.network} onChange={(e) => set({ network: e.target.value as Network })} data-testid="chain-network" {...(err('network') ? { 'aria-invalid': true } : {})}>
            {NETWORKS.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
          {err('network') && (
            <span className="field-error" role="alert" data-testid="chain-error-network">
              {err('network')}
            </span>
          )}
        </label>
      </div>
      <fieldset className="choices">
        <legend>Where the chain is read from</legend>
        {(
          [
            ['node', 'My own node'],
            ['electrum', 'An Electrum server'],
            ['blockbook', 'A Blockbook'],
          ] as const
        ).map(([k, label]) => (
          <label className="inline" key={k}>
            <input type="radio" name="chain-kind" checked={f.kind === k} onChange={() => set({ kind: k })} data-testid={`chain-kind-${k}`} /> {label}
          </label>
        ))}
      </fieldset>
      {f.kind !== 'electrum' && (
        <TextField
          label={f.kind === 'node' ? 'Node RPC address' : 'Blockbook address'}
          value={f.url}
          onChange={(url) => set({ url })}
          placeholder={f.kind === 'node' ? 'http://127.0.0.1:9332' : 'https://ltc1.trezor.io'}
          spellCheck={false}
          error={err('url')}
          errorTestId="chain-error-url"
          data-testid="chain-url"
        />
      )}
      {f.kind === 'node' && (
        <>
          <fieldset className="choices">
            <legend>How the desk logs in</legend>
            <label className="inline">
              <input type="radio" name="chain-auth" checked={f.auth === 'cookie'} onChange={() => set({ auth: 'cookie' })} data-testid="chain-auth-cookie" /> The node&apos;s cookie file (the node writes it when it has no rpcpassword)
            </label>
            <label className="inline">
              <input type="radio" name="chain-auth" checked={f.auth === 'password'} onChange={() => set({ auth: 'password' })} data-testid="chain-auth-password" /> A user and password (rpcuser / rpcauth)
            </label>
          </fieldset>
          {f.auth === 'cookie' ? (
            <TextField label="Cookie file" value={f.cookieFile} onChange={(cookieFile) => set({ cookieFile })} placeholder="~/.litecoin/.cookie (regtest/.cookie, testnet4/.cookie off mainnet)" spellCheck={false} className="mono" error={err('cookie_file')} errorTestId="chain-error-cookie_file" data-testid="chain-cookie" />
          ) : (
            <div className="grid-3">
              <TextField label="User" value={f.username} onChange={(username) => set({ username })} autoComplete="off" error={err('username')} errorTestId="chain-error-username" data-testid="chain-username" />
              <TextField
                label="Password"
                type="password"
                value={f.password}
                onChange={(password) => set({ password })}
                autoComplete="off"
                placeholder={passwordStored(f.coin) ? 'a password is stored; type one to change it' : ''}
                error={err('password')}
                errorTestId="chain-error-password"
                data-testid="chain-password"
              />
            </div>
          )}
        </>
      )}
      {f.kind === 'electrum' && (
        <>
          <div className="grid-3">
            <TextField label="Host" value={f.host} onChange={(host) => set({ host })} placeholder="electrum.example.org" spellCheck={false} error={err('host')} errorTestId="chain-error-host" data-testid="chain-host" />
            <TextField label="Port" value={f.port} onChange={(port) => set({ port })} inputMode="numeric" error={err('port')} errorTestId="chain-error-port" data-testid="chain-port" />
            <label className="inline">
              <input type="checkbox" checked={f.tls} onChange={(e) => set({ tls: e.target.checked })} data-testid="chain-tls" /> TLS
            </label>
          </div>
          {f.tls && (
            <>
              <label className="inline">
                <input type="checkbox" checked={f.pin} onChange={(e) => set({ pin: e.target.checked })} data-testid="chain-pin" /> Pin the server&apos;s certificate (for a self-signed server: only this certificate is accepted)
              </label>
              {f.pin && (
                <TextField label="Certificate SHA-256" value={f.pinned} onChange={(pinned) => set({ pinned })} placeholder="Test connection fills it in" className="mono" error={err('pinned_sha256')} errorTestId="chain-error-pinned_sha256" data-testid="chain-pinned" />
              )}
            </>
          )}
        </>
      )}
      {other && <Alert>{other}</Alert>}
      {tested && (
        <Alert kind="success">
          <strong>The {f.coin} chain answered.</strong>
          <Answered a={tested} />
        </Alert>
      )}
      <div className="form-actions">
        <button type="button" onClick={() => void test()} disabled={busy} data-testid="chain-test">
          {busy && acting === 'test' ? 'Testing…' : 'Test connection'}
        </button>
        <button className="primary" type="submit" disabled={busy || tested === null} data-testid="chain-save">
          {busy && acting === 'save' ? 'Saving and restarting the service…' : 'Save and connect'}
        </button>
        <span className="muted small" data-testid="chain-save-words">
          {tested ? 'Saving restarts the embedded service with this chain.' : 'Test the connection first; only a chain that answers is saved.'}
          {/* Testing changes nothing; saving a coin the operator's file sets replaces the file's connection. */}
          {fromFile(f.coin) && ` ${f.coin} is set in embedded-service.json: testing changes nothing, and saving here replaces that connection.`}
        </span>
      </div>
    </form>
  );
}

export function ChainSettings() {
  const loaded = useLoad(() => call('chains.list', {}), []);
  const [saved, setSaved] = useState<ChainsView | null>(null);
  const [editing, setEditing] = useState<Coin | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const removing = useAction();
  const v = saved ?? loaded.data;
  if (loaded.error) return <Alert>{loaded.error}</Alert>;
  if (!v) return <Loading what="the chains" />;
  const coins = v.chains.map((c) => c.coin as Coin);
  const connected = v.chains.filter((c) => c.source !== null);
  const passwordStored = (coin: Coin) => v.chains.find((c) => c.coin === coin)?.password_stored ?? false;
  const current = editing ?? (connected.length === 0 ? (coins.includes('litecoin' as Coin) ? ('litecoin' as Coin) : coins[0]!) : null);
  const initial = (coin: Coin) => {
    const c = v.chains.find((x) => x.coin === coin)?.choice;
    return c ? formOf(coin, c) : emptyForm(coin);
  };
  const changed = (next: ChainsView, message: string) => {
    setSaved(next);
    setEditing(null);
    setDone(message);
    announceServiceChanged();
  };

  return (
    <Card title="Chains" className="chains-card">
      <div data-testid="chains">
        {!v.not_here && (
          <p className="muted">
            The desk&apos;s own service reads each coin&apos;s chain from a backend you choose: your own node (a pruned one too), an Electrum server or a Blockbook. Nothing is written by hand.
          </p>
        )}
        {/* Which service the desk talks to, in the words Settings > Service uses, so the two agree. */}
        <p data-testid="chains-service">
          {v.not_here
            ? `${v.not_here[0]!.toUpperCase()}${v.not_here.slice(1)}.`
            : v.embedded
              ? `The desk talks to its own embedded service at ${v.service_url}, which reads the chains below.`
              : `The desk talks to the remote service at ${v.service_url}: its operator connects that service's chains. The chains below are read by the desk's own embedded service, which it uses again when you choose it under Service.`}
        </p>
        {v.notice && (
          <Alert kind="info">
            <span data-testid="chains-notice">{v.notice}</span>
          </Alert>
        )}
        {connected.length > 0 && (
          <ul className="results" data-testid="chains-connected">
            {connected.map((c) => (
              <li key={c.coin} className="result result-imported" data-testid={`chain-row-${c.coin}`}>
                <strong>
                  {c.coin} {c.choice?.network ?? ''}
                </strong>
                : {describe(c)}{' '}
                {c.source === 'settings' && (
                  <>
                    <button type="button" className="link" onClick={() => (setDone(null), setEditing(c.coin as Coin))}>
                      Change
                    </button>{' '}
                    <button
                      type="button"
                      className="link danger"
                      disabled={removing.busy}
                      onClick={() => void removing.run(async () => changed(await call('chains.remove', { coin: c.coin as Coin }), `${c.coin} is disconnected; the embedded service restarted without it.`))}
                      data-testid={`chain-remove-${c.coin}`}
                    >
                      Disconnect
                    </button>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
        {removing.error && <Alert>{removing.error}</Alert>}
        {done && (
          <Alert kind="success">
            <span data-testid="chains-done">{done}</span>
          </Alert>
        )}
        {v.not_here ? null : current ? (
          <ConnectForm
            key={current}
            initial={initial(current)}
            coins={coins}
            passwordStored={passwordStored}
            fromFile={(coin) => v.chains.find((c) => c.coin === coin)?.source === 'file'}
            onSaved={(next, coin) => changed(next, `${coin} is connected; the embedded service restarted and reads its chain.`)}
          />
        ) : (
          <button type="button" onClick={() => (setDone(null), setEditing(coins.find((c) => !connected.some((x) => x.coin === c)) ?? coins[0]!))} data-testid="chain-add">
            Connect another chain
          </button>
        )}
        {!v.not_here && <p className="muted small">Node passwords: {v.secret_storage.problem ? `cannot be kept here: ${v.secret_storage.problem}` : v.secret_storage.description}.</p>}
      </div>
    </Card>
  );
}

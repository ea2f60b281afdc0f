import { useState, type FormEvent } from 'react';
import { go, href } from '../navigation.ts';
import type { BridgeInput } from '../../../main/bridge/contract.ts';
import { DeviceSelect, QrScanDialog } from '../components/QrDialogs.tsx';
import type { SignerDevice } from '../../../shared/api/signer-devices.ts';
import { call } from '../bridge.ts';
import { ConnectChainFirst, useServedChains } from '../components/ChainGate.tsx';
import { SubmitActions, TextField } from '../components/form.tsx';
import { Alert, Card, FileDrop, PageHead, message, useAction, useLoad, type PickedFile } from '../ui.tsx';
import { DecayCard, RecoveryPathCard, emptyDecay, emptyRecovery, useTimelocks, type DecayDraft, type KeyRow, type RecoveryDraft, type VaultShape } from './VaultRecovery.tsx';

interface Row {
  name: string;
  xpub: string;
  fingerprint: string;
  path: string;
  /** The co-signer's air-gapped signer, when said (the QR dialogs open on its code). */
  device: SignerDevice | null;
}

const emptyRow = (): Row => ({ name: '', xpub: '', fingerprint: '', path: '', device: null });
const NETWORKS = ['regtest', 'testnet', 'mainnet'] as const;
/** The coins a wallet can be made for and those a Ledger reads xpubs for: the bridge's enumerations. */
type WalletCoin = BridgeInput<'wallets.create'>['coin'];
type LedgerCoin = BridgeInput<'ledger.xpub'>['coin'];
type ScriptType = NonNullable<BridgeInput<'wallets.create'>['script_type']>;
type Birthday = NonNullable<BridgeInput<'wallets.create'>['birthday']>;

const SCRIPT_TYPES: { value: ScriptType; label: string; path: string }[] = [
  { value: 'p2wsh', label: 'Native segwit (P2WSH)', path: "m/48'/coin'/0'/2'" },
  { value: 'p2sh-p2wsh', label: 'Nested segwit (P2SH-P2WSH)', path: "m/48'/coin'/0'/1'" },
  { value: 'p2sh', label: 'Legacy (P2SH)', path: "m/45'/coin'/0'" },
];

export function NewWallet() {
  const [name, setName] = useState('');
  // The coin table, from the desk: the multi-signature (UTXO) coins and what each can do.
  const coins = useLoad(() => call('coins.list', {}), []);
  const walletCoins = (coins.data ?? []).filter((c) => c.family === 'utxo');
  const [coin, setCoin] = useState<WalletCoin>('litecoin');
  const [network, setNetwork] = useState<(typeof NETWORKS)[number]>('regtest');
  const [m, setM] = useState(2);
  const [rows, setRows] = useState<Row[]>([emptyRow(), emptyRow(), emptyRow()]);
  // Address type and key order: native segwit with sorted keys where the coin has segwit, legacy
  // P2SH in the co-signers' order otherwise; null = that default (it follows the coin).
  const hasSegwit = walletCoins.find((c) => c.coin === coin)?.segwit ?? false;
  const [chosenType, setChosenType] = useState<ScriptType | null>(null);
  const [chosenSort, setChosenSort] = useState<boolean | null>(null);
  const scriptType: ScriptType = chosenType !== null && (hasSegwit || chosenType === 'p2sh') ? chosenType : hasSegwit ? 'p2wsh' : 'p2sh';
  const sortKeys = chosenSort ?? scriptType !== 'p2sh';
  const pathHint = SCRIPT_TYPES.find((t) => t.value === scriptType)!.path;
  const { busy, refusal, setError, fail, run } = useAction();
  // A vault with a recovery path (issue 27): the co-signers are its primary path; P2WSH miniscript.
  const [withRecovery, setWithRecovery] = useState(false);
  const [shape, setShape] = useState<VaultShape>('recovery');
  const [paths, setPaths] = useState<RecoveryDraft[]>(() => [emptyRecovery()]);
  const [decay, setDecay] = useState<DecayDraft[]>(() => [emptyDecay(1)]);
  const timelocks = useTimelocks(coin, network, shape === 'recovery' ? paths : decay);
  const steps = shape === 'recovery' ? paths.length : decay.length;
  // Create waits until every path's days are read as days and blocks (none refused).
  const recoveryBlocked = withRecovery && (!hasSegwit || timelocks.length !== steps || timelocks.some((t) => t.words === null));
  const [notes, setNotes] = useState<string[]>([]);
  // Where the wallet is read from: a new wallet from the tip; an imported one from its file's
  // birthday, or a date the treasurer gives, or the beginning.
  const [birthday, setBirthday] = useState<Birthday['source']>('tip');
  const [fileBirthday, setFileBirthday] = useState<number | null>(null);
  const [birthdayDate, setBirthdayDate] = useState('');
  // What the service serves (its status), to say before Create that a choice cannot work there.
  const served = useServedChains();
  // A set-up file from another wallet fills the form; the treasurer reviews it, then creates.
  // A Liana/Nunchuk vault descriptor or a BIP388 policy with a timelock (every vault has one) is
  // made as a vault from its own text; every other set-up file fills the multisig form.
  const [vaultFile, setVaultFile] = useState<PickedFile | null>(null);
  const importSetup = async (files: PickedFile[]) => {
    setError(null);
    setNotes([]);
    setVaultFile(null);
    const vault = files.length === 1 && /older\(/.test(files[0]!.text) ? files[0]! : null;
    if (vault) {
      setVaultFile(vault);
      setNotes([`${vault.name}: a vault with recovery paths (a miniscript descriptor or BIP388 policy); the desk reads its keys and paths when it is created`]);
      setBirthday('genesis');
      return;
    }
    try {
      // The form's address type and key order apply to BSMS key records only; other files say their own.
      const d = await call('wallets.readSetup', { files, coin, network, m, script_type: scriptType, sort_keys: sortKeys, ...(name.trim() ? { name } : {}) });
      setName(d.name);
      if (walletCoins.some((c) => c.coin === d.coin)) setCoin(d.coin as WalletCoin);
      if ((NETWORKS as readonly string[]).includes(d.network)) setNetwork(d.network as (typeof NETWORKS)[number]);
      setM(d.m);
      setRows(d.cosigners.map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint === '00000000' ? '' : c.fingerprint, path: c.derivation_path === 'm' ? '' : c.derivation_path, device: null })));
      // The file's address type and key order (a different choice would be another wallet).
      setChosenType(d.script_type);
      setChosenSort(d.sort_keys);
      setNotes(d.notes);
      setFileBirthday(d.birthday_height);
      // An existing vault may hold funds from before today: never default it to the tip. Without
      // a birthday in its file it is read from the beginning unless the treasurer gives a date.
      setBirthday(d.birthday_height !== null ? 'file' : 'genesis');
    } catch (err) {
      fail(err);
    }
  };
  const set = (i: number, patch: Partial<Row>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  // A co-signer at the desk with a Ledger: read the xpub (and its fingerprint and path) from the device.
  const [reading, setReading] = useState<number | null>(null);
  // A co-signer's air-gapped signer shows its key as a QR (UR crypto-account or hdkey, Coldcard's export, [fingerprint/path]xpub).
  const [scanning, setScanning] = useState<number | null>(null);
  const scriptOfType = scriptType === 'p2wsh' ? 'wsh' : scriptType === 'p2sh-p2wsh' ? 'sh(wsh)' : 'sh';
  const ledgerCoin = walletCoins.find((c) => c.coin === coin && c.ledger)?.coin as LedgerCoin | undefined;
  const readFromLedger = async (i: number) => {
    if (!ledgerCoin) return;
    setError(null);
    setReading(i);
    try {
      const path = rows[i]!.path.trim();
      const k = await call('ledger.xpub', { coin: ledgerCoin, network, ...(path ? { path } : { script_type: scriptType }) });
      set(i, { xpub: k.xpub, fingerprint: k.fingerprint, path: k.derivation_path });
    } catch (err) {
      setError(message(err));
    } finally {
      setReading(null);
    }
  };

  const birthdayInput = (): Birthday =>
    birthday === 'file' && fileBirthday !== null ? { source: 'file', height: fileBirthday } : birthday === 'date' ? { source: 'date', date: birthdayDate } : birthday === 'genesis' ? { source: 'genesis' } : { source: 'tip' };
  const dateError = refusal && /(^|\.)(birthday_date|date)$/.test(refusal.field ?? '') ? refusal.message : null;
  // A vault file the desk refuses (its keys, its paths, a script Bitcoin would never let spend) is named at the file.
  const fileError = refusal && vaultFile && refusal.field === 'text' ? refusal.message : null;
  if (served?.length === 0) {
    return (
      <>
        <PageHead back={{ href: href.wallets, label: 'Wallets' }} title="New multi-signature wallet" />
        <ConnectChainFirst what="a new wallet" />
      </>
    );
  }

  const keyOf = (r: KeyRow) => ({
    name: r.name,
    xpub: r.xpub,
    ...(r.fingerprint.trim() ? { fingerprint: r.fingerprint.trim().toLowerCase() } : {}),
    ...(r.path.trim() ? { derivation_path: r.path.trim() } : {}),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (vaultFile) {
      return run(async () => {
        const w = await call('vaults.create', { template: 'import', name, coin, network, text: vaultFile.text, birthday: birthdayInput() });
        go(href.wallet(w.id));
      });
    }
    if (withRecovery) {
      const common = { name, coin, network, primary: { threshold: m, cosigners: rows.map(keyOf) }, birthday: birthdayInput() };
      return run(async () => {
        const w =
          shape === 'recovery'
            ? await call('vaults.create', { ...common, template: 'recovery', recovery: paths.map((p) => ({ threshold: p.threshold, cosigners: p.keys.map(keyOf), days: p.days })) })
            : await call('vaults.create', { ...common, template: 'decaying', decay: decay.map((d) => ({ threshold: d.threshold, days: d.days })) });
        go(href.wallet(w.id));
      });
    }
    return run(async () => {
      const w = await call('wallets.create', {
        name,
        coin,
        network,
        m,
        cosigners: rows.map((r) => ({
          name: r.name,
          xpub: r.xpub,
          ...(r.fingerprint.trim() ? { fingerprint: r.fingerprint.trim().toLowerCase() } : {}),
          ...(r.path.trim() ? { derivation_path: r.path.trim() } : {}),
          ...(r.device ? { device: r.device } : {}),
        })),
        script_type: scriptType,
        sort_keys: sortKeys,
        birthday: birthdayInput(),
      });
      go(href.wallet(w.id));
    });
  };

  /** What the Create button says of the vault's later paths. */
  const vaultWords = () =>
    shape === 'decaying'
      ? `that decays to ${decay.map((d) => `${d.threshold}-of-${rows.length}${d.days.trim() ? ` after ${d.days.trim()} days` : ''}`).join(', then ')}`
      : paths.length === 1
        ? `with a ${paths[0]!.threshold}-of-${paths[0]!.keys.length} recovery path`
        : `with ${paths.length} recovery paths (${paths.map((p) => `${p.threshold}-of-${p.keys.length}`).join(', then ')})`;
  return (
    <form onSubmit={(e) => void submit(e)} aria-describedby="new-wallet-help">
      <PageHead
        back={{ href: href.wallets, label: 'Wallets' }}
        title="New multi-signature wallet"
        about={
          <p className="muted" id="new-wallet-help">
            Each co-signer gives you an extended public key (xpub). The desk derives every address from them and checks each one with the service before anything is stored.
          </p>
        }
      />
      <Card title="From another wallet (optional)">
        <FileDrop
          label="Import set-up file"
          hint="a BSMS record, a multisig descriptor (sh, sh(wsh) or wsh; multi or sortedmulti), a Caravan or Specter wallet file, a Coldcard/Nunchuk/Electrum multisig file, or the co-signers' BSMS key records"
          multiple
          accept=".bsms,.txt,.json,.dat"
          onFiles={(f) => void importSetup(f)}
          testId="import-setup"
        />
        {notes.length > 0 && (
          <ul className="results" aria-live="polite" data-testid="setup-notes">
            {notes.map((n) => (
              <li key={n} className="result result-imported">
                {n}
              </li>
            ))}
          </ul>
        )}
        {fileError && (
          <p className="field-error" role="alert" data-testid="vault-file-error">
            {vaultFile!.name}: {fileError}
          </p>
        )}
        <p className="muted small">The form below is filled in from the file: check it, then create the wallet. Keys keep the file's order; the address type and key order are the file's.</p>
      </Card>
      <Card title="Wallet">
        <div className="grid-3">
          <TextField label="Name" value={name} onChange={setName} required placeholder="Operating treasury" data-testid="wallet-name" />
          <label>
            Coin
            <select value={coin} onChange={(e) => setCoin(e.target.value as WalletCoin)} data-testid="wallet-coin">
              {walletCoins.map((c) => (
                <option key={c.coin} value={c.coin}>
                  {c.coin}
                </option>
              ))}
            </select>
          </label>
          <label>
            Network
            <select value={network} onChange={(e) => setNetwork(e.target.value as (typeof NETWORKS)[number])} data-testid="wallet-network">
              {NETWORKS.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </label>
        </div>
        {served && served.length > 0 && !served.some((c) => c.coin === coin && c.network === network) && (
          <p className="field-error" data-testid="wallet-coin-unserved">
            The service this desk uses serves {served.map((c) => `${c.coin} ${c.network}`).join(', ')}, not {coin} {network}: a wallet here could show no balance and make no payment.
          </p>
        )}
        <label className="inline">
          <input type="checkbox" checked={withRecovery} onChange={(e) => setWithRecovery(e.target.checked)} data-testid="wallet-with-recovery" /> With recovery paths: after a number of days, other keys or fewer of the
          co-signers can move the funds (a vault in native segwit miniscript)
        </label>
        {withRecovery && !hasSegwit && <p className="field-error">{coin} has no segwit: a vault with a recovery path cannot be made on it.</p>}
        {withRecovery && (
          <fieldset className="choices" data-testid="vault-shape">
            <legend className="sr-only">Kind of recovery</legend>
            <label className="inline">
              <input type="radio" name="vault-shape" checked={shape === 'recovery'} onChange={() => setShape('recovery')} data-testid="vault-shape-recovery" /> Recovery keys: after a time, other keys (a lawyer, a second office, an heir) can move the funds
            </label>
            <label className="inline">
              <input type="radio" name="vault-shape" checked={shape === 'decaying'} onChange={() => setShape('decaying')} data-testid="vault-shape-decaying" /> Decaying multisig: after a time, fewer of the same co-signers can move the funds
            </label>
          </fieldset>
        )}
        {!withRecovery && (
        <div className="grid-3">
          <label>
            Address type
            <select value={scriptType} onChange={(e) => setChosenType(e.target.value as ScriptType)} data-testid="wallet-script-type">
              {SCRIPT_TYPES.filter((t) => hasSegwit || t.value === 'p2sh').map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Key order
            <select value={sortKeys ? 'sorted' : 'given'} onChange={(e) => setChosenSort(e.target.value === 'sorted')} data-testid="wallet-key-order">
              <option value="sorted">Sorted (BIP67)</option>
              <option value="given">As the co-signers are listed</option>
            </select>
          </label>
          <p className="muted small">
            {scriptType === 'p2sh' ? 'Legacy P2SH, the only type on coins without segwit.' : 'Segwit payments are smaller, so they pay lower fees.'} Keep the co-signers&apos; order for a wallet shared with
            clients of the original API. Default key path: <span className="mono">{pathHint}</span>.
          </p>
        </div>
        )}
        <label className="inline">
          Signatures required
          <input type="number" min={1} max={rows.length} value={m} onChange={(e) => setM(Number(e.target.value))} className="narrow" data-testid="wallet-m" />
          <span className="muted">
            of {rows.length} co-signers ({m}-of-{rows.length})
          </span>
        </label>
      </Card>
      <Card title="Birthday: where the chain is read from">
        <fieldset className="choices" data-testid="birthday">
          <legend className="sr-only">Birthday</legend>
          <label className="inline">
            <input type="radio" name="birthday" checked={birthday === 'tip'} onChange={() => setBirthday('tip')} data-testid="birthday-tip" /> A new wallet: from the chain&apos;s tip now (nothing before it can pay this wallet)
          </label>
          {fileBirthday !== null && (
            <label className="inline">
              <input type="radio" name="birthday" checked={birthday === 'file'} onChange={() => setBirthday('file')} data-testid="birthday-file" /> From the set-up file: block {fileBirthday.toLocaleString('en-US')}
            </label>
          )}
          <label className="inline">
            <input type="radio" name="birthday" checked={birthday === 'date'} onChange={() => setBirthday('date')} data-testid="birthday-date-choice" /> From a date: the day of the wallet&apos;s first transaction
          </label>
          {birthday === 'date' && (
            <TextField
              label="First used on (UTC)"
              type="date"
              value={birthdayDate}
              onChange={(d) => {
                // A new date: the refusal of the last one no longer applies.
                setBirthdayDate(d);
                if (dateError) setError(null);
              }}
              error={dateError}
              errorTestId="birthday-date-error"
              data-testid="birthday-date"
            />
          )}
          <label className="inline">
            <input type="radio" name="birthday" checked={birthday === 'genesis'} onChange={() => setBirthday('genesis')} data-testid="birthday-genesis" /> From the beginning of the chain (when nobody knows; the slowest to read)
          </label>
        </fieldset>
        <p className="muted small">The node&apos;s block times turn a date into a block shortly before that day&apos;s first one. A later &quot;Rescan from…&quot; on the wallet&apos;s page reads further back.</p>
      </Card>
      {!vaultFile && (
        <>
      <Card
        title={`Co-signers (${rows.length})`}
        actions={
          <button type="button" onClick={() => setRows((rs) => [...rs, emptyRow()])} disabled={rows.length >= 15}>
            Add co-signer
          </button>
        }
      >
        <ol className="cosigner-rows">
          {rows.map((r, i) => (
            <li key={i} className="cosigner-row">
              <div className="grid-cosigner">
                <TextField label="Name" value={r.name} onChange={(name) => set(i, { name })} required data-testid={`cosigner-name-${i}`} />
                <TextField label="Extended public key (xpub)" value={r.xpub} onChange={(xpub) => set(i, { xpub })} required spellCheck={false} className="mono" data-testid={`cosigner-xpub-${i}`} />
                <TextField label="Fingerprint" value={r.fingerprint} onChange={(fingerprint) => set(i, { fingerprint })} placeholder="optional: d34db33f" className="mono" />
                <TextField label="Path" value={r.path} onChange={(path) => set(i, { path })} placeholder={`optional: ${pathHint}`} className="mono" data-testid={`cosigner-path-${i}`} />
                {!withRecovery && <DeviceSelect notSaid label="QR signer" device={r.device} onChange={(device) => set(i, { device })} testId={`cosigner-device-${i}`} />}
              </div>
              {ledgerCoin && (
                <button type="button" className="link" onClick={() => void readFromLedger(i)} disabled={reading !== null} aria-label={`Read co-signer ${i + 1}'s key from a Ledger`} data-testid={`cosigner-ledger-${i}`}>
                  {reading === i ? 'Confirm on the Ledger…' : 'Read from Ledger'}
                </button>
              )}
              <button type="button" className="link" onClick={() => setScanning(i)} aria-label={`Scan co-signer ${i + 1}'s key with the camera`} data-testid={`cosigner-scan-${i}`}>
                Scan key (QR)
              </button>
              <button type="button" className="link danger" onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))} disabled={rows.length <= 1} aria-label={`Remove co-signer ${i + 1}`}>
                Remove
              </button>
            </li>
          ))}
        </ol>
        {scanning !== null && (
          <QrScanDialog
            title={`Scan co-signer ${scanning + 1}'s key`}
            expect="key"
            script={scriptOfType}
            onDone={(r) => {
              // A device's own export (a Coldcard's key file) presets the co-signer's device; the treasurer can change it.
              if (r.state === 'key') set(scanning, { xpub: r.key.xpub, fingerprint: r.key.fingerprint, path: r.key.derivation_path, ...(r.key.device ? { device: r.key.device } : {}) });
              setScanning(null);
            }}
            onClose={() => setScanning(null)}
          />
        )}
      </Card>
        </>
      )}
      {withRecovery && !vaultFile && shape === 'recovery' && (
        <div className="recovery-paths">
          {paths.map((p, i) => (
            <RecoveryPathCard
              key={i}
              i={i}
              draft={p}
              timelock={timelocks[i]}
              onChange={(d) => setPaths((ps) => ps.map((x, j) => (j === i ? d : x)))}
              onRemove={paths.length > 1 ? () => setPaths((ps) => ps.filter((_, j) => j !== i)) : null}
            />
          ))}
          <p>
            <button type="button" onClick={() => setPaths((ps) => [...ps, emptyRecovery()])} disabled={paths.length >= 5} data-testid="recovery-add-path">
              Add a later recovery path
            </button>{' '}
            <span className="muted small">Each later path opens after more days than the one before it (up to 5).</span>
          </p>
        </div>
      )}
      {withRecovery && !vaultFile && shape === 'decaying' && <DecayCard steps={decay} onChange={setDecay} timelocks={timelocks} m={m} n={rows.length} />}
      {refusal && !dateError && !fileError && (
        <Alert>
          <span data-testid="wallet-refusal">{refusal.message}</span>
          {refusal.walletId && (
            <>
              {' '}
              <a href={href.wallet(refusal.walletId)} data-testid="existing-wallet-link">
                Open the existing wallet
              </a>
            </>
          )}
        </Alert>
      )}
      <SubmitActions
        disabled={recoveryBlocked && !vaultFile}
        label={vaultFile ? 'Create vault from the file' : withRecovery ? `Create ${m}-of-${rows.length} vault ${vaultWords()}` : `Create ${m}-of-${rows.length} wallet`} busyLabel="Checking addresses with the service…" busy={busy} testId="create-wallet" cancelHref={href.wallets} />
    </form>
  );
}

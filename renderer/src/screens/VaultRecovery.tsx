// The new-wallet form's recovery path (issue 27): recovery keys typed or pasted like co-signers,
// how many of them sign, and after how many days; the days are shown in the coin's blocks as they
// are typed, and a value the chain cannot lock for is refused in words at the field.
import { useEffect, useState } from 'react';
import type { BridgeInput } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { TextField } from '../components/form.tsx';
import { Card, message } from '../ui.tsx';

export interface KeyRow {
  name: string;
  xpub: string;
  fingerprint: string;
  path: string;
}

export interface RecoveryDraft {
  threshold: number;
  keys: KeyRow[];
  days: string;
}

export const emptyKey = (): KeyRow => ({ name: '', xpub: '', fingerprint: '', path: '' });
export const emptyRecovery = (): RecoveryDraft => ({ threshold: 1, keys: [emptyKey()], days: '' });

type Coin = BridgeInput<'vaults.timelock'>['coin'];
type Network = BridgeInput<'vaults.timelock'>['network'];

/** The days as the desk reads them: words, a refusal, or (while asking) neither. */
export function useTimelock(coin: Coin, network: Network, days: string): { words: string | null; error: string | null } {
  const [state, setState] = useState<{ words: string | null; error: string | null }>({ words: null, error: null });
  useEffect(() => {
    let live = true;
    setState({ words: null, error: null });
    if (days.trim() === '') return;
    call('vaults.timelock', { coin, network, days })
      .then((t) => live && setState({ words: t.words, error: null }))
      .catch((err: unknown) => live && setState({ words: null, error: message(err) }));
    return () => {
      live = false;
    };
  }, [coin, network, days]);
  return state;
}

export function RecoveryPathCard({ draft, onChange, timelock }: { draft: RecoveryDraft; onChange: (d: RecoveryDraft) => void; timelock: { words: string | null; error: string | null } }) {
  const setKey = (i: number, patch: Partial<KeyRow>) => onChange({ ...draft, keys: draft.keys.map((k, j) => (j === i ? { ...k, ...patch } : k)) });
  return (
    <Card
      title={`Recovery path (${draft.threshold} of ${draft.keys.length})`}
      actions={
        <button type="button" onClick={() => onChange({ ...draft, keys: [...draft.keys, emptyKey()] })} disabled={draft.keys.length >= 15} data-testid="recovery-add-key">
          Add recovery key
        </button>
      }
    >
      <p className="muted small">If the co-signers above cannot sign, these keys can move a coin once it is this old: a lawyer, a second office, an inheritance key. Spending a coin on the main path starts its clock again.</p>
      <div className="grid-3">
        <TextField
          label="Opens after (days)"
          value={draft.days}
          onChange={(days) => onChange({ ...draft, days })}
          inputMode="numeric"
          placeholder="90"
          error={timelock.error}
          errorTestId="recovery-days-error"
          data-testid="recovery-days"
        />
        <p className="muted" aria-live="polite" data-testid="recovery-days-words">
          {timelock.words ?? ''}
        </p>
        <label className="inline">
          Signatures required
          <input type="number" min={1} max={draft.keys.length} value={draft.threshold} onChange={(e) => onChange({ ...draft, threshold: Number(e.target.value) })} className="narrow" data-testid="recovery-threshold" />
          <span className="muted">of {draft.keys.length} recovery keys</span>
        </label>
      </div>
      <ol className="cosigner-rows">
        {draft.keys.map((k, i) => (
          <li key={i} className="cosigner-row">
            <div className="grid-cosigner">
              <TextField label="Name" value={k.name} onChange={(name) => setKey(i, { name })} required data-testid={`recovery-name-${i}`} />
              <TextField label="Extended public key (xpub)" value={k.xpub} onChange={(xpub) => setKey(i, { xpub })} required spellCheck={false} className="mono" data-testid={`recovery-xpub-${i}`} />
              <TextField label="Fingerprint" value={k.fingerprint} onChange={(fingerprint) => setKey(i, { fingerprint })} placeholder="optional: d34db33f" className="mono" />
              <TextField label="Path" value={k.path} onChange={(path) => setKey(i, { path })} placeholder="optional: m/48'/coin'/0'/2'" className="mono" />
            </div>
            <button type="button" className="link danger" onClick={() => onChange({ ...draft, keys: draft.keys.filter((_, j) => j !== i) })} disabled={draft.keys.length <= 1} aria-label={`Remove recovery key ${i + 1}`}>
              Remove
            </button>
          </li>
        ))}
      </ol>
    </Card>
  );
}

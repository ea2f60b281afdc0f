// The new-wallet form's recovery paths (issue 27). Two shapes: recovery keys (after T days, a K-of-R
// set of other keys: a lawyer, a second office, an inheritance key; several paths may follow each
// other, each later than the one before) or a decaying multisig (after T days, a lower threshold of
// the same co-signers). The days are shown in the coin's blocks as they are typed, and a value the
// chain cannot lock for, or a later path not later than the one before, is refused in words at the field.
import { useEffect, useState } from 'react';
import type { BridgeInput } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { TextField } from '../components/form.tsx';
import { plural } from '../../../shared/api/words.ts';
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
  /** Typed in at least once: an empty field is then refused in words, not before. */
  touched?: boolean;
}

/** One step of a decaying multisig: after `days`, `threshold` of the same co-signers. */
export interface DecayDraft {
  threshold: number;
  days: string;
  touched?: boolean;
}

export type VaultShape = 'recovery' | 'decaying';

export const emptyKey = (): KeyRow => ({ name: '', xpub: '', fingerprint: '', path: '' });
export const emptyRecovery = (): RecoveryDraft => ({ threshold: 1, keys: [emptyKey()], days: '' });
export const emptyDecay = (threshold: number): DecayDraft => ({ threshold: Math.max(1, threshold), days: '' });

type Coin = BridgeInput<'vaults.timelock'>['coin'];
type Network = BridgeInput<'vaults.timelock'>['network'];
export interface TimelockState {
  words: string | null;
  error: string | null;
}

/** Test ids: the first path keeps the plain names (recovery-days), later ones are numbered (recovery-2-days). */
const tid = (prefix: string, i: number, what: string) => (i === 0 ? `${prefix}-${what}` : `${prefix}-${i + 1}-${what}`);

/**
 * Each path's days as the desk reads them: words, a refusal, or (while asking, or an untouched empty
 * field) neither. Each path after the first is checked against the days of the one before it.
 */
export function useTimelocks(coin: Coin, network: Network, drafts: readonly { days: string; touched?: boolean }[]): TimelockState[] {
  const key = JSON.stringify(drafts.map((d) => [d.days, d.touched === true]));
  const [state, setState] = useState<TimelockState[]>([]);
  useEffect(() => {
    let live = true;
    const blank = { words: null, error: null };
    setState(drafts.map(() => blank));
    void Promise.all(
      drafts.map((d, i) => {
        if (d.days.trim() === '' && !d.touched) return Promise.resolve(blank);
        const before = drafts[i - 1]?.days.trim() ?? '';
        const after = i > 0 && /^[0-9]+$/.test(before) && Number(before) >= 1 ? { after_days: Number(before) } : {};
        return call('vaults.timelock', { coin, network, days: d.days, ...after }).then(
          (t) => ({ words: t.words, error: null }),
          (err: unknown) => ({ words: null, error: message(err) }),
        );
      }),
    ).then((s) => live && setState(s));
    return () => {
      live = false;
    };
  }, [coin, network, key]);
  return state;
}

function DaysField({ i, prefix, days, onChange, timelock, label }: { i: number; prefix: string; days: string; onChange: (days: string) => void; timelock: TimelockState | undefined; label: string }) {
  return (
    <>
      <TextField label={label} value={days} onChange={onChange} inputMode="numeric" placeholder={i === 0 ? '90' : ''} error={timelock?.error ?? null} errorTestId={tid(prefix, i, 'days-error')} data-testid={tid(prefix, i, 'days')} />
      <p className="muted" aria-live="polite" data-testid={tid(prefix, i, 'days-words')}>
        {timelock?.words ?? ''}
      </p>
    </>
  );
}

export function RecoveryPathCard({ i, draft, onChange, onRemove, timelock }: { i: number; draft: RecoveryDraft; onChange: (d: RecoveryDraft) => void; onRemove: (() => void) | null; timelock: TimelockState | undefined }) {
  const setKey = (k: number, patch: Partial<KeyRow>) => onChange({ ...draft, keys: draft.keys.map((row, j) => (j === k ? { ...row, ...patch } : row)) });
  return (
    <Card
      title={`Recovery path ${i + 1} (${draft.threshold} of ${draft.keys.length})`}
      actions={
        <>
          <button type="button" onClick={() => onChange({ ...draft, keys: [...draft.keys, emptyKey()] })} disabled={draft.keys.length >= 15} data-testid={tid('recovery', i, 'add-key')}>
            Add recovery key
          </button>
          {onRemove && (
            <>
              {' '}
              <button type="button" className="link danger" onClick={onRemove} data-testid={tid('recovery', i, 'remove')}>
                Remove this path
              </button>
            </>
          )}
        </>
      }
    >
      <p className="muted small">
        {i === 0
          ? 'If the co-signers above cannot sign, these keys can move a coin once it is this old: a lawyer, a second office, an inheritance key. Spending a coin on the main path starts its clock again.'
          : 'If neither the co-signers nor the path above can sign, these keys can move a coin once it is this old. It opens later than the path above.'}
      </p>
      <div className="grid-3">
        <DaysField i={i} prefix="recovery" days={draft.days} onChange={(days) => onChange({ ...draft, days, touched: true })} timelock={timelock} label={i === 0 ? 'Opens after (days)' : `Opens after (days; more than path ${i})`} />
        <label className="inline">
          Signatures required
          <input type="number" min={1} max={draft.keys.length} value={draft.threshold} onChange={(e) => onChange({ ...draft, threshold: Number(e.target.value) })} className="narrow" data-testid={tid('recovery', i, 'threshold')} />
          <span className="muted">of {plural(draft.keys.length, 'recovery key')}</span>
        </label>
      </div>
      <ol className="cosigner-rows">
        {draft.keys.map((k, j) => (
          <li key={j} className="cosigner-row">
            <div className="grid-cosigner">
              <TextField label="Name" value={k.name} onChange={(name) => setKey(j, { name })} required data-testid={`${tid('recovery', i, 'name')}-${j}`} />
              <TextField label="Extended public key (xpub)" value={k.xpub} onChange={(xpub) => setKey(j, { xpub })} required spellCheck={false} className="mono" data-testid={`${tid('recovery', i, 'xpub')}-${j}`} />
              <TextField label="Fingerprint" value={k.fingerprint} onChange={(fingerprint) => setKey(j, { fingerprint })} placeholder="optional: d34db33f" className="mono" />
              <TextField label="Path" value={k.path} onChange={(path) => setKey(j, { path })} placeholder="optional: m/48'/coin'/0'/2'" className="mono" />
            </div>
            <button type="button" className="link danger" onClick={() => onChange({ ...draft, keys: draft.keys.filter((_, x) => x !== j) })} disabled={draft.keys.length <= 1} aria-label={`Remove recovery key ${j + 1} of path ${i + 1}`}>
              Remove
            </button>
          </li>
        ))}
      </ol>
    </Card>
  );
}

/** The decaying multisig's later steps: after each number of days, fewer of the same co-signers sign. */
export function DecayCard({ steps, onChange, timelocks, m, n }: { steps: DecayDraft[]; onChange: (s: DecayDraft[]) => void; timelocks: TimelockState[]; m: number; n: number }) {
  const set = (i: number, patch: Partial<DecayDraft>) => onChange(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const last = steps[steps.length - 1];
  return (
    <Card
      title="Decaying multisig: fewer signatures with time"
      actions={
        <button type="button" onClick={() => onChange([...steps, emptyDecay((last?.threshold ?? m) - 1)])} disabled={steps.length >= 5 || (last?.threshold ?? m) <= 1} data-testid="decay-add">
          Add a later step
        </button>
      }
    >
      <p className="muted small">
        Now {m} of the {n} co-signers sign. After each time below, fewer of the same co-signers can move a coin that old, so the funds survive keys that are lost. Spending a coin on the main path starts its clock again.
      </p>
      <ol className="plain">
        {steps.map((s, i) => (
          <li key={i} className="grid-3">
            <DaysField i={i} prefix="decay" days={s.days} onChange={(days) => set(i, { days, touched: true })} timelock={timelocks[i]} label={i === 0 ? 'After (days)' : `After (days; more than step ${i})`} />
            <label className="inline">
              Then
              <input type="number" min={1} max={n} value={s.threshold} onChange={(e) => set(i, { threshold: Number(e.target.value) })} className="narrow" data-testid={tid('decay', i, 'threshold')} />
              <span className="muted">of the {n} co-signers sign</span>
              {steps.length > 1 && (
                <button type="button" className="link danger" onClick={() => onChange(steps.filter((_, j) => j !== i))} aria-label={`Remove step ${i + 1}`}>
                  Remove
                </button>
              )}
            </label>
          </li>
        ))}
      </ol>
    </Card>
  );
}

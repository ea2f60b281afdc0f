// How a proposal pays its miners: a preset rate from the service's estimates (fast / normal / slow:
// 1 / 6 / 24 blocks, saying when the node had none and the fallback is given), a custom rate, or a
// fixed fee. Also says whether the payment will be replaceable (BIP125).
import type { ReactNode } from 'react';
import type { FeePresets, Unit } from '../../../main/bridge/contract.ts';
import { TextField } from '../components/form.tsx';
import type { Loaded } from '../ui.tsx';
import { plural } from '../../../shared/api/words.ts';

export type FeeMode = 'fast' | 'normal' | 'slow' | 'custom' | 'fixed';

const PRESET_NAMES: Record<'fast' | 'normal' | 'slow', string> = { fast: 'Fast', normal: 'Normal', slow: 'Slow' };

/** What the proposal sends for its fee, or null when the choice is not yet a valid one. */
export function feeArgs(mode: FeeMode, presets: FeePresets | null, fixedFee: bigint | null, customRate: string): { miners_fee: bigint } | { fee_rate: bigint } | null {
  if (mode === 'fixed') return fixedFee === null ? null : { miners_fee: fixedFee };
  if (mode === 'custom') return /^[1-9][0-9]{0,9}$/.test(customRate.trim()) ? { fee_rate: BigInt(customRate.trim()) } : null;
  const preset = presets?.presets.find((p) => p.name === mode);
  return preset ? { fee_rate: preset.fee_rate } : null;
}

/** `rateOnly`: a rate is asked for (a refresh sends all at a rate), so no fixed fee is offered. */
export function FeeChoice(props: { unit: Unit; presets: Loaded<FeePresets>; mode: FeeMode; onMode: (m: FeeMode) => void; customRate: string; onCustomRate: (v: string) => void; rateError: string | null; rateOnly?: boolean }) {
  const { unit, presets, mode, onMode, customRate, onCustomRate, rateError, rateOnly = false } = props;
  const radio = (m: FeeMode, label: ReactNode, disabled = false) => (
    <label className="inline" key={m}>
      <input type="radio" name="fee-mode" value={m} checked={mode === m} disabled={disabled} onChange={() => onMode(m)} data-testid={`fee-mode-${m}`} /> {label}
    </label>
  );
  const p = presets.data;
  return (
    <fieldset className="fee-choice" data-testid="fee-choice">
      <legend>Miners&apos; fee</legend>
      {presets.error && <p className="muted">The service gave no fee estimates ({presets.error}): give a rate or a fee.</p>}
      {(['fast', 'normal', 'slow'] as const).map((name) => {
        const preset = p?.presets.find((x) => x.name === name);
        return radio(
          name,
          <>
            {PRESET_NAMES[name]} (within {plural(preset?.blocks ?? { fast: 1, normal: 6, slow: 24 }[name], 'block')}): {preset ? `${preset.fee_rate} ${unit.smallest}/vB` : '…'}
            {preset?.fallback && <span className="muted"> (the service&apos;s fallback rate: the node has no estimate)</span>}
          </>,
          !preset,
        );
      })}
      {radio('custom', 'A rate of my own')}
      {mode === 'custom' && <TextField label={`Fee rate (${unit.smallest} per vbyte)`} value={customRate} onChange={onCustomRate} required inputMode="numeric" data-testid="pay-fee-rate" error={rateError} errorTestId="pay-fee-rate-error" />}
      {!rateOnly && radio('fixed', `A fixed fee in ${unit.ticker}`)}
      {p && (
        <p className="muted small" data-testid="replaceable-note">
          {p.replaceable
            ? p.relayed
              ? 'Replaceable (BIP125): the fee can be raised later if the payment is slow to confirm.'
              : "Signals replacement (BIP125); the service's node for this coin, or most of its network, does not relay replacements, so a stuck payment is sped up by a child payment spending its change."
            : p.bip125
              ? 'Not replaceable: the desk setting for replaceable payments is off.'
              : "Not replaceable: this coin's nodes do not relay replacements (BIP125). If it is slow to confirm, a child spending its change can pull it through."}
        </p>
      )}
    </fieldset>
  );
}

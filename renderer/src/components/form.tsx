// Form pieces every "new …" and "send …" screen repeats: a labelled text input, and the submit
// button (saying what it is doing while busy) beside a Cancel link.
import type { InputHTMLAttributes, ReactNode } from 'react';

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>;

export function TextField({ label, value, onChange, ...input }: { label: ReactNode; value: string; onChange: (value: string) => void } & InputProps) {
  return (
    <label>
      {label}
      <input value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </label>
  );
}

export function SubmitActions({ label, busyLabel, busy, testId, cancelHref }: { label: string; busyLabel: string; busy: boolean; testId: string; cancelHref: string }) {
  return (
    <div className="form-actions">
      <button type="submit" className="primary" disabled={busy} data-testid={testId}>
        {busy ? busyLabel : label}
      </button>
      <a className="button" href={cancelHref}>
        Cancel
      </a>
    </div>
  );
}

// Form pieces every "new …" and "send …" screen repeats: a labelled text input, and the submit
// button (saying what it is doing while busy) beside a Cancel link.
import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>;

/** A labelled input; `error` is shown beside it (its words, announced) and marks the input invalid. */
export function TextField({ label, value, onChange, error, errorTestId, ...input }: { label: ReactNode; value: string; onChange: (value: string) => void; error?: string | null; errorTestId?: string } & InputProps) {
  const id = useId();
  return (
    <label>
      {label}
      <input value={value} onChange={(e) => onChange(e.target.value)} {...input} {...(error ? { 'aria-invalid': true, 'aria-describedby': id } : {})} />
      {error && (
        <span className="field-error" id={id} role="alert" {...(errorTestId ? { 'data-testid': errorTestId } : {})}>
          {error}
        </span>
      )}
    </label>
  );
}

export function SubmitActions({ label, busyLabel, busy, testId, cancelHref, disabled = false }: { label: string; busyLabel: string; busy: boolean; testId: string; cancelHref: string; disabled?: boolean }) {
  return (
    <div className="form-actions">
      <button type="submit" className="primary" disabled={busy || disabled} data-testid={testId}>
        {busy ? busyLabel : label}
      </button>
      <a className="button" href={cancelHref}>
        Cancel
      </a>
    </div>
  );
}

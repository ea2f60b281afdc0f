// A label edited where it is shown: click it (or "Add label"), type, Enter saves, Escape puts it
// back as it was. The desk records every change in the audit log; an empty label removes it.
import { useState, type KeyboardEvent } from 'react';
import { message } from '../ui.tsx';

export function InlineLabel({ value, onSave, what, testId, placeholder = 'Add label' }: { value: string; onSave: (label: string) => Promise<void>; what: string; testId: string; placeholder?: string }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(value);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = () => {
    setText(value);
    setError(null);
    setEditing(true);
  };
  const save = async () => {
    setBusy(true);
    try {
      await onSave(text.trim());
      setEditing(false);
      setError(null);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      void save();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setEditing(false);
      setError(null);
    }
  };
  if (!editing)
    return (
      <button type="button" className={`label-chip${value ? '' : ' label-empty'}`} onClick={start} title={`Edit the label of ${what}`} aria-label={value ? `Label of ${what}: ${value}. Edit` : `Add a label to ${what}`} data-testid={testId}>
        {value || placeholder}
      </button>
    );
  return (
    <span className="label-edit">
      <input
        autoFocus
        value={text}
        maxLength={255}
        disabled={busy}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
        onBlur={() => !busy && !error && setEditing(false)}
        aria-label={`Label of ${what} (Enter saves, Escape cancels)`}
        data-testid={`${testId}-input`}
      />
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

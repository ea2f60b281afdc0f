// Small shared pieces of the screens: loading data with polling, alerts, state badges, files.
import { useCallback, useEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import type { PaymentState, Unit } from '../../main/bridge/contract.ts';
import { filesTooLarge, fileTooLarge, MAX_FILE_BYTES, MAX_PICKED_BYTES } from '../../shared/api/file-limits.ts';
import { BridgeCallError } from './bridge.ts';
import { amount } from './format.ts';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/** Loads with `load`, again every `pollMs` (balances and confirmations change on their own). */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], pollMs = 0): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    loadRef.current().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
      },
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  useEffect(() => {
    if (!pollMs) return;
    const t = setInterval(() => setTick((n) => n + 1), pollMs);
    return () => clearInterval(t);
  }, [pollMs]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, reload };
}

/** A refusal as the screen places it: beside its field, with a link to the wallet it names. */
export interface Refusal {
  message: string;
  field: string | null;
  walletId: string | null;
}

export interface Action {
  busy: boolean;
  error: string | null;
  /** The last error with what it concerns (its field, the wallet it names). */
  refusal: Refusal | null;
  setError: (error: string | null) => void;
  /** Shows what a call outside `run` threw, with what it concerns. */
  fail: (err: unknown) => void;
  /** Runs `work` once: clears the error, is busy meanwhile, and shows what it throws as the error. */
  run: (work: () => Promise<void>) => Promise<void>;
}

export const refusalOf = (err: unknown): Refusal =>
  err instanceof BridgeCallError ? { message: err.message, field: err.field, walletId: err.walletId } : { message: message(err), field: null, walletId: null };

/** The state of a form's submit: busy while the desk works, then the error it met, if any. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const setError = useCallback((error: string | null) => setRefusal(error === null ? null : { message: error, field: null, walletId: null }), []);
  const run = async (work: () => Promise<void>) => {
    setRefusal(null);
    setBusy(true);
    try {
      await work();
    } catch (err) {
      setRefusal(refusalOf(err));
    } finally {
      setBusy(false);
    }
  };
  const fail = useCallback((err: unknown) => setRefusal(refusalOf(err)), []);
  return { busy, error: refusal?.message ?? null, refusal, setError, fail, run };
}

export function Alert({ kind = 'error', children }: { kind?: 'error' | 'info' | 'success'; children: ReactNode }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

const STATE_LABELS: Record<PaymentState, string> = {
  awaiting_signatures: 'Awaiting signatures',
  ready: 'Ready to submit',
  broadcast: 'Broadcast',
  confirmed: 'Confirmed',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

export function StateBadge({ state }: { state: PaymentState }) {
  return <span className={`badge badge-${state}`}>{STATE_LABELS[state]}</span>;
}

export function Amount({ units, unit, signed = false }: { units: bigint; unit: Unit; signed?: boolean }) {
  const text = amount(units, unit);
  return <span className={`amount${signed ? (units < 0n ? ' negative' : ' positive') : ''}`}>{signed && units > 0n ? `+${text}` : text}</span>;
}

/** A page's head: the way back, the title, what the page is about, and its main action. */
export function PageHead({ back, title, about, action }: { back: { href: string; label: string }; title: ReactNode; about?: ReactNode; action?: ReactNode }) {
  return (
    <div className="page-head">
      <div>
        <a className="back" href={back.href}>
          ← {back.label}
        </a>
        <h1>{title}</h1>
        {about}
      </div>
      {action}
    </div>
  );
}

export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card ${className ?? ''}`}>
      {(title || actions) && (
        <header className="card-header">
          {title && <h2>{title}</h2>}
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** Saves text as a file (the browser's download; Electron shows its save dialog); base64 text is saved as its bytes. */
export function download(fileName: string, text: string, encoding?: 'base64'): void {
  const body = encoding === 'base64' ? Uint8Array.from(atob(text), (c) => c.charCodeAt(0)) : text;
  const type = encoding === 'base64' ? 'application/octet-stream' : fileName.endsWith('.csv') ? 'text/csv' : 'application/json';
  const url = URL.createObjectURL(new Blob([body], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export interface PickedFile {
  name: string;
  text: string;
}

// A binary PSBT (magic "psbt" 0xff) travels as its base64, the form PSBT readers also accept as text.
const PSBT_MAGIC = [0x70, 0x73, 0x62, 0x74, 0xff];
async function readFile(f: File): Promise<PickedFile> {
  const bytes = new Uint8Array(await f.arrayBuffer());
  if (!PSBT_MAGIC.every((b, i) => bytes[i] === b)) return { name: f.name, text: new TextDecoder().decode(bytes) };
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return { name: f.name, text: btoa(binary) };
}

/**
 * The files picked, read; or why they are not: a file above the desk's limit is refused by its size
 * before it is read (the bridge would refuse its text in the same words).
 */
async function readFiles(list: FileList | null): Promise<{ files: PickedFile[] } | { refused: string }> {
  const files = [...(list ?? [])];
  const large = files.find((f) => f.size > MAX_FILE_BYTES);
  if (large) return { refused: fileTooLarge(large.name, large.size) };
  const total = files.reduce((s, f) => s + f.size, 0);
  if (total > MAX_PICKED_BYTES) return { refused: filesTooLarge(total) };
  return { files: await Promise.all(files.map(readFile)) };
}

/** A file picker that is also a drop zone; keyboard users get the real <input type=file>. */
export function FileDrop({ label, hint, multiple, onFiles, testId, accept = '.json,application/json' }: { label: string; hint: string; multiple: boolean; onFiles: (files: PickedFile[]) => void; testId: string; accept?: string }) {
  const [over, setOver] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  const take = (list: FileList | null) =>
    readFiles(list).then((read) => {
      setRefused('refused' in read ? read.refused : null);
      if ('files' in read && read.files.length) onFiles(read.files);
    });
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void take(e.dataTransfer.files);
  };
  return (
    <>
      <label
        className={`drop ${over ? 'drop-over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        data-testid={`${testId}-zone`}
      >
        <span className="drop-label">{label}</span>
        <span className="muted">{hint}</span>
        <input
          type="file"
          accept={accept}
          multiple={multiple}
          data-testid={testId}
          onChange={(e) => {
            const input = e.currentTarget;
            void take(input.files).then(() => {
              input.value = '';
            });
          }}
        />
      </label>
      {refused && <Alert>{refused}</Alert>}
    </>
  );
}

export const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const PURPOSE: Record<string, string> = { payment: 'Payment', operator_fee: 'Operator fee', change: 'Change (back to this wallet)' };

/** What a payment pays: each output with its purpose and address, the miners' fee, and what it spends. */
export function PaysTable(props: {
  outputs: readonly { purpose: string; address: string; amount: bigint; label?: string }[];
  minersFee: bigint;
  spent: bigint;
  spentLabel: ReactNode;
  unit: Unit;
  testId?: string;
  /** The transaction's virtual size and the fee rate it makes (smallest units per vbyte), shown beside the fee. */
  size?: { vsize: number; feeRate: string };
}) {
  const { outputs, minersFee, spent, spentLabel, unit, testId, size } = props;
  return (
    <table {...(testId ? { 'data-testid': testId } : {})}>
      <tbody>
        {outputs.map((o, i) => (
          <tr key={i}>
            <th scope="row">
              {PURPOSE[o.purpose] ?? o.purpose}
              {o.label ? <span className="output-label"> · {o.label}</span> : null}
              <div className="mono small muted address-cell">{o.address}</div>
            </th>
            <td className="num">
              <Amount units={o.amount} unit={unit} />
            </td>
          </tr>
        ))}
        <tr>
          <th scope="row">
            Miners&apos; fee
            {size ? (
              <div className="small muted" data-testid="fee-rate">
                {size.vsize} vbytes · {size.feeRate} {unit.smallest}/vB
              </div>
            ) : null}
          </th>
          <td className="num">
            <Amount units={minersFee} unit={unit} />
          </td>
        </tr>
        <tr className="total-row">
          <th scope="row">{spentLabel}</th>
          <td className="num">
            <Amount units={spent} unit={unit} />
          </td>
        </tr>
      </tbody>
    </table>
  );
}

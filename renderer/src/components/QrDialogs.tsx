// Air-gapped signers by QR (issue 34): the dialog that shows animated frames (a PSBT, a wallet's
// registration) and the dialog that reads them with the camera. Frames are made and read by the
// desk (the bridge's qr.* channels); this page only draws them and hands back what the camera saw.
import { useEffect, useRef, useState } from 'react';
import QRCode from 'qrcode';
import type { QrFramesView, QrReadView } from '../../../main/bridge/contract.ts';
import { SIGNER_DEVICES, SIGNER_DEVICE_NAMES, type SignerDevice } from '../../../shared/api/signer-devices.ts';
import { call } from '../bridge.ts';
import type { readQrText as ReadQrText } from './qr-decoder.ts';
import { Alert, message } from '../ui.tsx';

export type Density = 'high' | 'low';

/** Draws one frame as a standard QR (level L, 4 modules of quiet zone), `px` pixels a module. */
function drawQr(canvas: HTMLCanvasElement, text: string, px: number): void {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'L' });
  const n = qr.modules.size;
  const side = (n + 8) * px;
  canvas.width = side;
  canvas.height = side;
  const g = canvas.getContext('2d');
  if (!g) return;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, side, side);
  g.fillStyle = '#000';
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (qr.modules.get(y, x)) g.fillRect((x + 4) * px, (y + 4) * px, px, px);
}

/** A dialog over the page: its title, a Close button, its content. */
function DialogFrame(props: { title: string; onClose: () => void; testId: string; closeTestId: string; children: React.ReactNode }) {
  return (
    <div className="qr-dialog" role="dialog" aria-modal="true" aria-label={props.title} data-testid={props.testId}>
      <div className="card">
        <div className="card-header">
          <h2>{props.title}</h2>
          <button type="button" onClick={props.onClose} data-testid={props.closeTestId}>
            Close
          </button>
        </div>
        {props.children}
      </div>
    </div>
  );
}

/**
 * A kind of air-gapped signer: the one the frames are for (it picks the code), or a co-signer's,
 * stored so the QR dialogs open on its code; `notSaid` offers "not said" (null) as well.
 */
export function DeviceSelect(props: { device: SignerDevice | null; label: string; testId: string; disabled?: boolean } & ({ notSaid: true; onChange: (d: SignerDevice | null) => void } | { notSaid?: false; onChange: (d: SignerDevice) => void })) {
  const change = (value: string) => {
    if (props.notSaid) props.onChange(value === '' ? null : (value as SignerDevice));
    else props.onChange(value as SignerDevice);
  };
  return (
    <label>
      {props.label}
      <select value={props.device ?? ''} onChange={(e) => change(e.target.value)} disabled={props.disabled} data-testid={props.testId}>
        {props.notSaid && <option value="">Not said</option>}
        {SIGNER_DEVICES.map((d) => (
          <option key={d} value={d}>
            {SIGNER_DEVICE_NAMES[d]}
          </option>
        ))}
      </select>
    </label>
  );
}

export function QrShowDialog(props: {
  title: string;
  about?: string;
  /** Frames for the chosen density (and format, when `formats` offers a choice). */
  load: (o: { density: Density; format?: 'ur' | 'bbqr' }) => Promise<QrFramesView>;
  formats: boolean;
  onClose: () => void;
  children?: React.ReactNode;
}) {
  const [density, setDensity] = useState<Density>('high');
  const [format, setFormat] = useState<'ur' | 'bbqr' | undefined>(undefined);
  const [view, setView] = useState<QrFramesView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fps, setFps] = useState(5);
  const [playing, setPlaying] = useState(true);
  const [index, setIndex] = useState(0);
  const canvas = useRef<HTMLCanvasElement>(null);
  const { load } = props;

  useEffect(() => {
    let live = true;
    setError(null);
    load({ density, ...(format ? { format } : {}) }).then(
      (v) => {
        if (!live) return;
        setView(v);
        setIndex(0);
      },
      (e: unknown) => live && setError(message(e)),
    );
    return () => {
      live = false;
    };
  }, [load, density, format]);

  useEffect(() => {
    if (!playing || !view || view.frames.length < 2) return;
    const t = setInterval(() => setIndex((i) => (i + 1) % view.frames.length), 1000 / fps);
    return () => clearInterval(t);
  }, [playing, fps, view]);

  useEffect(() => {
    const frame = view?.frames[index];
    if (canvas.current && frame) drawQr(canvas.current, frame, density === 'high' ? 4 : 6);
  }, [view, index, density]);

  const shownFormat = format ?? (view?.format === 'bbqr' ? 'bbqr' : view?.format === 'ur' ? 'ur' : undefined);
  return (
    <DialogFrame title={props.title} onClose={props.onClose} testId="qr-show-dialog" closeTestId="qr-close">
        {props.about && <p className="muted small">{props.about}</p>}
        {props.children}
        <div className="qr-controls">
          <fieldset>
            <legend>Density</legend>
            <label>
              <input type="radio" name="qr-density" checked={density === 'high'} onChange={() => setDensity('high')} data-testid="qr-density-high" /> High (fewer frames)
            </label>
            <label>
              <input type="radio" name="qr-density" checked={density === 'low'} onChange={() => setDensity('low')} data-testid="qr-density-low" /> Low (for weak cameras)
            </label>
          </fieldset>
          {props.formats && (
            <fieldset>
              <legend>Code</legend>
              <label>
                <input type="radio" name="qr-format" checked={shownFormat === 'ur'} onChange={() => setFormat('ur')} data-testid="qr-format-ur" /> UR (Keystone, Passport, Jade, SeedSigner)
              </label>
              <label>
                <input type="radio" name="qr-format" checked={shownFormat === 'bbqr'} onChange={() => setFormat('bbqr')} data-testid="qr-format-bbqr" /> BBQr (Coldcard, Krux, Sparrow)
              </label>
            </fieldset>
          )}
          <label>
            Frames a second: <strong data-testid="qr-fps">{fps}</strong>
            <input type="range" min={1} max={15} value={fps} onChange={(e) => setFps(Number(e.target.value))} aria-label="Frames a second" data-testid="qr-fps-range" />
          </label>
        </div>
        {error && <Alert>{error}</Alert>}
        {view && (
          <>
            <div className="qr-frame">
              <canvas ref={canvas} data-testid="qr-canvas" data-frame={index} data-frames={view.frames.length} aria-label={`QR frame ${index + 1} of ${view.frames.length}`} />
            </div>
            <p className="small" data-testid="qr-status">
              Frame {index + 1} of {view.frames.length} · {view.format === 'ur' ? 'UR crypto-psbt' : view.format === 'bbqr' ? 'BBQr' : view.format}
              {view.bytes !== undefined && ` · ${view.bytes.toLocaleString()} bytes`}
              {view.short && ' · without previous transactions (the signer reads amounts from the witness UTXOs)'}
            </p>
            {view.preferred_why && (
              <p className="muted small" data-testid="qr-preselected">
                Preselected {view.preferred_why}.
              </p>
            )}
            <div className="form-actions">
              <button type="button" onClick={() => setPlaying((p) => !p)} data-testid="qr-play">
                {playing ? 'Pause' : 'Play'}
              </button>
              <button type="button" onClick={() => setIndex((i) => (i + 1) % view.frames.length)} data-testid="qr-next">
                Next frame
              </button>
            </div>
          </>
        )}
    </DialogFrame>
  );
}

/** The decoder (qr-decoder.ts, with its WebAssembly inside): loaded when a scan dialog first opens. */
let decoder: Promise<{ readQrText: typeof ReadQrText }> | null = null;
// A chunk that failed to load is asked for again by the next scan, not remembered as failed.
const qrDecoder = () =>
  (decoder ??= import('./qr-decoder.ts').catch((e: unknown) => {
    decoder = null;
    throw new Error(`the QR decoder did not load (${message(e)}): import the signer's file instead`);
  }));

type Finished = Extract<QrReadView, { state: 'psbt' | 'key' }>;

/**
 * Reads animated frames with the camera: every new frame goes to the desk, which says how far the
 * code is read (a progress bar of fragments) and, once whole, what it holds, or refuses it in words.
 */
export function QrScanDialog(props: { title: string; expect: 'psbt' | 'key'; script?: string; paymentId?: string; onDone: (r: Finished) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [state, setState] = useState<QrReadView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);
  const [attempt, setAttempt] = useState(0);
  const { expect, script, paymentId } = props;
  // The latest callback, without restarting the camera when the page re-renders.
  const onDone = useRef(props.onDone);
  onDone.current = props.onDone;

  useEffect(() => {
    let stream: MediaStream | null = null;
    let stopped = false;
    const frames: string[] = [];
    const seen = new Set<string>();
    let asking = false;
    // Loaded while the camera starts; a failure is shown by the first frame that needs it.
    const decoding = qrDecoder();
    decoding.catch(() => undefined);
    const grab = document.createElement('canvas');
    const tick = async () => {
      const v = video.current;
      if (stopped || !v || v.readyState < 2 || asking) return;
      grab.width = v.videoWidth;
      grab.height = v.videoHeight;
      const g = grab.getContext('2d', { willReadFrequently: true });
      if (!g) return;
      g.drawImage(v, 0, 0);
      asking = true;
      try {
        const text = await (await decoding).readQrText(g.getImageData(0, 0, grab.width, grab.height));
        if (!text || seen.has(text)) return;
        seen.add(text);
        frames.push(text);
        setReads(frames.length);
        const r = await call('qr.read', { frames, expect, ...(script ? { script } : {}), ...(paymentId ? { payment_id: paymentId } : {}) });
        if (stopped) return;
        setState(r);
        if (r.state === 'psbt' || r.state === 'key') {
          stopped = true;
          onDone.current(r);
        } else if (r.state === 'refused') {
          stopped = true;
        }
      } catch (e) {
        setError(message(e));
      } finally {
        asking = false;
      }
    };
    const timer = setInterval(() => void tick(), 100);
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      .then((s) => {
        stream = s;
        if (stopped) return s.getTracks().forEach((t) => t.stop());
        if (video.current) video.current.srcObject = s;
      })
      .catch((e: unknown) => setError(`the camera did not start: ${message(e)}. Allow the desk to use the camera, or import the signer's file instead.`));
    return () => {
      stopped = true;
      clearInterval(timer);
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, [expect, script, paymentId, attempt]);

  const reading = state?.state === 'reading' ? state : null;
  return (
    <DialogFrame title={props.title} onClose={props.onClose} testId="qr-scan-dialog" closeTestId="scan-close">
        <p className="muted small">Hold the signer&apos;s screen in front of the camera until the bar is full; frames missed come round again.</p>
        <video ref={video} autoPlay muted playsInline className="qr-video" data-testid="scan-video" />
        <div className="qr-progress">
          <progress max={reading?.expected || 1} value={reading?.received ?? (state && state.state !== 'reading' ? 1 : 0)} data-testid="scan-progress" aria-label="Fragments received" />{' '}
          <span data-testid="scan-status">
            {reading && reading.expected > 0
              ? `${reading.received} of ${reading.expected} fragments (${reading.format}), about ${reading.percent}%`
              : state?.state === 'psbt'
                ? 'Read whole: checking it like a PSBT file…'
                : state?.state === 'key'
                  ? `Key read (${state.format})`
                  : reads > 0
                    ? `${reads} frame${reads === 1 ? '' : 's'} read`
                    : 'Looking for a QR code…'}
          </span>
        </div>
        {reading?.note && <p className="muted small" data-testid="scan-note">{reading.note}</p>}
        {state?.state === 'refused' && (
          <>
            <Alert>
              <span data-testid="scan-refused">Refused: {state.message}</span>
            </Alert>
            <button type="button" onClick={() => (setState(null), setReads(0), setAttempt((a) => a + 1))} data-testid="scan-again">
              Scan again
            </button>
          </>
        )}
        {error && <Alert>{error}</Alert>}
    </DialogFrame>
  );
}

// The service's indexing progress for the whole desk: one poll of service.status shared by the
// status bar and every wallet panel, faster while a coin's index is behind, with the samples the
// time-left estimate needs. A wallet whose coin is behind shows its figures as provisional. And the
// desk's own revision (desk.changes), so screens follow what the background follower records.
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ChainScanView, ServiceStatus } from '../../main/bridge/contract.ts';
import { plural } from '../../shared/api/words.ts';
import { call } from './bridge.ts';
import { useLoad, type Loaded } from './ui.tsx';
import { addSample, describeTimeLeft, timeLeft, type Sample } from './sync-estimate.ts';
import { scanHeight, watchScanWords } from './scan-progress.ts';

/** The window event that makes the status poll look again at once. */
const SERVICE_CHANGED = 'countersign:service-changed';

/** Settings calls this after switching service, so the status line does not show the old one for 10 s. */
export function announceServiceChanged(): void {
  window.dispatchEvent(new Event(SERVICE_CHANGED));
}

/** Calls `listener` whenever the service changes; returns the unsubscribe (an effect's cleanup). */
export function onServiceChanged(listener: () => void): () => void {
  window.addEventListener(SERVICE_CHANGED, listener);
  return () => window.removeEventListener(SERVICE_CHANGED, listener);
}

export interface CoinSync {
  coin: string;
  /** From coins.list: 'evm' coins are the Ether accounts' chains. null until the list is loaded. */
  family: 'utxo' | 'evm' | null;
  network: string;
  tip: number | null;
  indexed: number | null;
  /** Figures of this coin are final: the index has the node's tip. */
  final: boolean;
  /** What holds it back, in words, when not final. */
  state: string;
  /** 0..1 when both heights are known. */
  fraction: number | null;
  timeLeft: string;
}

/** A chain's watch scan with its time left, for the sync bar. */
export interface ScanSync {
  coin: string;
  network: string;
  line: string;
  note: string | null;
  fraction: number | null;
}

interface SyncState {
  status: Loaded<ServiceStatus>;
  coins: CoinSync[];
  /** The chains whose watch scans are running. */
  scans: ScanSync[];
  /** The desk's revision (desk.changes): lists that show payment states load again when it moves. */
  revision: number;
}

const SyncContext = createContext<SyncState | null>(null);
const key = (coin: string, network: string) => `${coin}/${network}`;
const n = (x: number) => x.toLocaleString('en-US');

function coinSync(c: ServiceStatus['coins'][number], samples: readonly Sample[], family: CoinSync['family']): CoinSync {
  const fraction = c.tip_height !== null && c.indexed_height !== null && c.tip_height > 0 ? Math.min(1, c.indexed_height / c.tip_height) : null;
  const state = c.error
    ? `the service reports: ${c.error}`
    : c.lag === null
      ? c.tip_height === null
        ? // No error yet: the service (just started or restarted) has not heard from the node.
          'waiting for the first answer of the node'
        : 'the index has not started yet'
      : `${plural(c.lag, 'block')} behind the node`;
  return {
    coin: c.coin,
    family,
    network: c.network,
    tip: c.tip_height,
    indexed: c.indexed_height,
    final: c.index_final,
    state,
    fraction,
    timeLeft: c.tip_height === null ? '' : describeTimeLeft(timeLeft(samples, c.tip_height)),
  };
}

function scanSync(scan: ChainScanView, samples: readonly Sample[]): ScanSync {
  const at = scanHeight(scan);
  const left = scan.tip_height === null ? '' : describeTimeLeft(timeLeft(samples, scan.tip_height));
  const span = scan.tip_height === null ? 0 : scan.tip_height - scan.from + 1;
  return { coin: scan.coin, network: scan.network, ...watchScanWords(scan, left), fraction: span > 0 ? Math.min(1, Math.max(0, (at - scan.from + 1) / span)) : null };
}

export function SyncProvider({ children }: { children: ReactNode }) {
  // The scans' heights are sampled apart from the index's: a scan starts again from a birthday.
  const scanSamples = useRef(new Map<string, Sample[]>());
  const samples = useRef(new Map<string, Sample[]>());
  const [behind, setBehind] = useState(false);
  // Every 2 s while a coin is behind (the bar moves and the estimate has samples), else every 10 s.
  const status = useLoad(
    async () => {
      const s = await call('service.status', {});
      const at = Date.now();
      for (const c of s.coins) {
        const k = key(c.coin, c.network);
        if (c.indexed_height === null) samples.current.delete(k);
        else samples.current.set(k, addSample(samples.current.get(k) ?? [], { at, indexed: c.indexed_height }));
      }
      const scanning = new Set(s.scans.map((c) => key(c.coin, c.network)));
      for (const k of scanSamples.current.keys()) if (!scanning.has(k)) scanSamples.current.delete(k);
      for (const c of s.scans) {
        const k = key(c.coin, c.network);
        scanSamples.current.set(k, addSample(scanSamples.current.get(k) ?? [], { at, indexed: scanHeight(c) }));
      }
      return s;
    },
    [],
    behind ? 2_000 : 10_000,
  );
  const { reload } = status;
  useEffect(() => {
    window.addEventListener(SERVICE_CHANGED, reload);
    return () => window.removeEventListener(SERVICE_CHANGED, reload);
  }, [reload]);
  const coinList = useLoad(() => call('coins.list', {}), []);
  const familyOf = (coin: string) => coinList.data?.find((c) => c.coin === coin)?.family ?? null;
  const coins = (status.data?.coins ?? []).map((c) => coinSync(c, samples.current.get(key(c.coin, c.network)) ?? [], familyOf(c.coin)));
  const scans = (status.data?.scans ?? []).map((c) => scanSync(c, scanSamples.current.get(key(c.coin, c.network)) ?? []));
  const anyBehind = coins.some((c) => !c.final) || scans.length > 0;
  useEffect(() => setBehind(anyBehind), [anyBehind]);
  // A local read, so it is asked often: a payment the desk's follower saw confirm shows within 2 s.
  const changes = useLoad(() => call('desk.changes', {}), [], 2_000);
  const revision = changes.data?.revision ?? 0;
  return <SyncContext.Provider value={{ status, coins, scans, revision }}>{children}</SyncContext.Provider>;
}

export function useSync(): SyncState {
  const s = useContext(SyncContext);
  if (!s) throw new Error('useSync outside SyncProvider');
  return s;
}

/** The desk's revision: put it in a screen's load dependencies to follow changes made elsewhere. */
export function useDeskRevision(): number {
  return useSync().revision;
}

/** The coin's indexing state; null until the service's status is known or when it does not serve the coin. */
export function useCoinSync(coin: string, network: string): CoinSync | null {
  return useSync().coins.find((c) => c.coin === coin && c.network === network) ?? null;
}

/** The indexing state of the chain Ether accounts on `network` live on. */
export function useEtherSync(network: string): CoinSync | null {
  return useSync().coins.find((c) => c.family === 'evm' && c.network === network) ?? null;
}

/** The progress bar of every chain whose wallets are being scanned or whose index is behind, under the header. */
export function SyncBar() {
  const { coins, scans } = useSync();
  // A chain scanning for wallets says that instead: its index is behind because of the scan.
  const behind = coins.filter((c) => !c.final && !scans.some((s) => s.coin === c.coin && s.network === c.network));
  if (behind.length === 0 && scans.length === 0) return null;
  return (
    <div className="sync-bar" role="status" data-testid="sync-bar">
      {scans.map((s) => (
        <div className="sync-coin" key={`scan:${key(s.coin, s.network)}`} data-testid="sync-scan">
          {s.fraction !== null && <progress max={1} value={s.fraction} aria-label={`${s.coin} scan progress`} />}
          <span data-testid="sync-scan-words">{s.line}</span>
          {s.note !== null && <span data-testid="sync-scan-note">{s.note}</span>}
          <span className="muted">balances of these wallets are provisional until it is done</span>
        </div>
      ))}
      {behind.map((c) => (
        <div className="sync-coin" key={key(c.coin, c.network)} data-testid="sync-coin">
          <strong>
            Indexing {c.coin} {c.network}
          </strong>
          {c.fraction !== null && <progress max={1} value={c.fraction} aria-label={`${c.coin} index progress`} />}
          <span data-testid="sync-heights">
            {c.indexed !== null && c.tip !== null ? `block ${n(c.indexed)} of ${n(c.tip)} (${Math.floor((c.fraction ?? 0) * 100)}%)` : c.state}
          </span>
          {c.indexed !== null && c.tip !== null && <span data-testid="sync-eta">{c.timeLeft}</span>}
          <span className="muted">balances of {c.coin} wallets are provisional until it is done</span>
        </div>
      ))}
    </div>
  );
}

/** On a wallet whose coin's index is behind: its figures are not final yet, and why. */
export function ProvisionalNotice({ sync, what }: { sync: CoinSync; what: string }) {
  return (
    <div className="alert alert-info provisional-notice" role="status" data-testid="provisional-notice">
      <strong>Not final yet.</strong> The service is still indexing {sync.coin} {sync.network}
      {sync.indexed !== null && sync.tip !== null ? ` (block ${n(sync.indexed)} of ${n(sync.tip)}, ${sync.timeLeft})` : ''}: {sync.state}. {what} may be missing
      transactions until it catches up; do not rely on {what === 'The balance' ? 'it' : 'them'}.
    </div>
  );
}

/** The words for a wallet whose used addresses are still being found: its figures count only those found so far. */
export function scanWords(scan: { checked: number; of: number }): string {
  return `checking addresses… (${n(scan.checked)} of ${n(scan.of)})`;
}

/** On a wallet whose used addresses are still being found: its figures are partial, and how far the desk is. */
export function ScanNotice({ scan, what }: { scan: { checked: number; of: number }; what: string }) {
  return (
    <div className="alert alert-info provisional-notice" role="status" data-testid="scan-notice">
      <strong>Not final yet: {scanWords(scan)}.</strong> The desk is still finding which of this wallet's addresses have been used; {what} counts only those found so far and will grow.
    </div>
  );
}

/** On a wallet whose figures are not final for another reason (a watching service still reading its blocks): why. */
export function NotFinalNotice({ why }: { why: string }) {
  return (
    <div className="alert alert-info provisional-notice" role="status" data-testid="not-final-notice">
      <strong>Not final yet:</strong> {why}. The figures of this wallet may still change; do not rely on them until this goes.
    </div>
  );
}

export function ProvisionalBadge() {
  return (
    <span className="badge badge-provisional" data-testid="provisional-badge" title="Not final yet: this figure may still change">
      provisional
    </span>
  );
}

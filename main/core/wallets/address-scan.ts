// Which of a wallet's addresses have been used, found once per desk run: both chains walked to the
// gap limit (walkChain). Until that walk is done the desk knows only some of the wallet's
// addresses, so its balance and history are partial: the screens say so with the walk's progress.
import { GAP_LIMIT, walkChain, type CoreDeps } from './wallets.ts';

export interface ScanProgress {
  /** Addresses checked with the service so far, both chains. */
  checked: number;
  /** At least this many are to be checked: a used address found moves it on by the gap limit. */
  of: number;
}

interface Scan {
  receive: { checked: number; done: boolean; lastUsed: number };
  change: { checked: number; done: boolean; lastUsed: number };
  done: boolean;
  running: Promise<void>;
}

/** The walk's figures so far. Pure. */
export function scanProgress(scan: Pick<Scan, 'receive' | 'change'>): ScanProgress {
  const chains = [scan.receive, scan.change];
  // A chain still walking needs at least one more batch past what it has checked.
  return { checked: chains.reduce((n, c) => n + c.checked, 0), of: chains.reduce((n, c) => n + c.checked + (c.done ? 0 : GAP_LIMIT), 0) };
}

export class AddressScans {
  private readonly scans = new Map<string, Scan>();
  /** Why each wallet's last walk failed, until one succeeds. */
  private readonly failures = new Map<string, unknown>();

  constructor(
    private readonly deps: CoreDeps,
    private readonly report: (err: unknown) => void = () => undefined,
  ) {}

  /** How far the wallet's walk has got, starting it the first time it is asked; null once done. */
  progress(walletId: string): ScanProgress | null {
    const known = this.scans.get(walletId);
    if (known) return known.done ? null : scanProgress(known);
    const scan: Scan = { receive: { checked: 0, done: false, lastUsed: -1 }, change: { checked: 0, done: false, lastUsed: -1 }, done: false, running: Promise.resolve() };
    this.scans.set(walletId, scan);
    scan.running = this.walk(walletId, scan);
    return scanProgress(scan);
  }

  /**
   * The wallet's walk is void (a rescan reads its blocks again, and may find coins on addresses the
   * walk found unused): the next question walks it again.
   */
  forget(walletId: string): void {
    this.scans.delete(walletId);
  }

  /** Why the wallet's last walk failed (it is walked again on the next question); undefined when none did. */
  failure(walletId: string): unknown {
    return this.failures.get(walletId);
  }

  /** Resolves once the wallet's walk (started if need be) is over, done or failed; whether it is done. */
  async finished(walletId: string): Promise<boolean> {
    this.progress(walletId);
    await this.scans.get(walletId)?.running;
    return this.scans.get(walletId)?.done === true;
  }

  private async walk(walletId: string, scan: Scan): Promise<void> {
    try {
      for (const chain of ['receive', 'change'] as const) {
        await walkChain(this.deps, walletId, chain === 'change', new Set(), (w) => Object.assign(scan[chain], w));
        scan[chain].done = true;
      }
      scan.done = true;
      this.failures.delete(walletId);
    } catch (err) {
      this.failures.set(walletId, err);
      // A service that cannot answer now (an index catching up, a network failure): the next look walks again.
      if (this.scans.get(walletId) === scan) this.scans.delete(walletId);
      this.report(err);
    }
  }
}

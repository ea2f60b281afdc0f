// Each coin's upstream is asked which chain it follows at start and on every reconnection, and the
// answer judged against the coin's configured network (shared/coins/chain-identity.ts, the same
// judgement as the desk's "Test connection"). While it follows another chain the coin serves
// nothing: every route of the coin answers 503 with the reason, /status and /readyz say it.
import type { Logger } from 'pino';
import { type ChainOverride, type SeenChain, wrongChain } from '../../shared/coins/chain-identity.ts';
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import { WrongChain } from '../errors.ts';

export class ChainGuard {
  /** Why the coin is refused now; null while its upstream is on the configured chain (or not asked yet). */
  refused: WrongChain | null = null;

  constructor(
    private readonly params: Pick<ChainParams, 'coin' | 'network' | 'identity'>,
    private readonly who: string,
    private readonly log: Logger,
    private readonly override: ChainOverride = {},
  ) {}

  /** Judges what the upstream says; throws (and keeps) WrongChain when it follows another chain. */
  judge(seen: SeenChain): void {
    const why = wrongChain(this.params, seen, this.who, this.override);
    const coin = this.params.coin;
    if (why !== (this.refused?.why ?? null)) {
      if (why !== null) this.log.error({ chain: seen.chain, genesis: seen.genesis }, new WrongChain(coin, why).message);
      else this.log.info({ chain: seen.chain }, `${coin}: ${this.who} is on ${this.params.network} again: serving ${coin}`);
    }
    this.refused = why === null ? null : new WrongChain(coin, why);
    if (this.refused) throw this.refused;
  }
}

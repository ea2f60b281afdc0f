// Whether the service the desk talks to is up and its index current: a coin counts as behind when
// it reports an error, does not know the node's tip (lag null: the node is unreachable) or lags
// more than 2 blocks. A coin behind has no final figures: the desk marks its balances provisional.
import type { ApiClient } from '../../../shared/api/client.ts';
import { coinRow, type CoinName } from '../../../shared/coins/index.ts';
import { relaysReplacements } from '../payments/fees.ts';
import { plural } from '../../../shared/api/words.ts';

export interface CoinStatus {
  coin: string;
  network: string;
  tip_height: number | null;
  indexed_height: number | null;
  lag: number | null;
  error: string | null;
  /** The index has the node's tip (within MAX_FINAL_LAG): balances and history of this coin are final. */
  index_final: boolean;
}

/** A poll interval's worth of blocks: a service that keeps up lags by this much between polls. */
export const MAX_FINAL_LAG = 2;

const isFinal = (c: { lag: number | null; error: string | null }): boolean => c.error === null && c.lag !== null && c.lag <= MAX_FINAL_LAG;

export interface ServiceHealth {
  ok: boolean;
  /** One sentence for the status line. */
  message: string;
  coins: CoinStatus[];
}

/**
 * Why the service cannot keep a wallet on `coin` `network`, in words, or null when it serves them.
 * The status lists what a deployment serves: a coin it does not list answers every address query 404.
 */
export async function unservedWords(api: Pick<ApiClient, 'status'>, coin: string, network: string): Promise<string | null> {
  const { coins } = await api.status();
  if (coins.some((c) => c.coin === coin && c.network === network)) return null;
  const served = coins.map((c) => `${c.coin} ${c.network}`);
  const list = served.length === 0 ? 'no coin at all' : served.length === 1 ? `${served[0]} only` : `${served.slice(0, -1).join(', ')} and ${served.at(-1)}`;
  return `the service this desk uses serves ${list}, not ${coin} ${network}: a ${coin} ${network} wallet there can show no balance and make no payment`;
}

/** Asks the service; a failure to answer is itself the status, never thrown. */
export async function serviceHealth(api: Pick<ApiClient, 'status'>): Promise<ServiceHealth> {
  try {
    const status = await api.status();
    const behind = status.coins.filter((c) => !isFinal(c));
    return {
      ok: behind.length === 0,
      message: behind.length === 0 ? 'connected; the index is up to date' : behind.map((c) => `${c.coin}: ${c.error ?? (c.lag === null ? 'waiting for the first answer of the node' : `${plural(c.lag, 'block')} behind`)}`).join('; '),
      coins: status.coins.map((c) => ({ coin: c.coin, network: c.network, tip_height: c.tip_height, indexed_height: c.indexed_height, lag: c.lag, error: c.error, index_final: isFinal(c) })),
    };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err), coins: [] };
  }
}

/**
 * Whether a replacement of a `coin` payment on `network` would be relayed to the miners: see
 * replacementsRelayedBy, with what the service's /status says (its `replacements` extension). Only
 * then is a bump offered: co-signers are never asked to sign a replacement that will be refused.
 * Whether a payment signals replacement is never this (fees.ts signalsReplacement): the bytes
 * co-signers sign do not hinge on the service's word.
 */
export async function replacementsRelayed(api: Pick<ApiClient, 'status'>, coin: CoinName, network: string): Promise<boolean> {
  const row = coinRow(coin);
  if (row.family !== 'utxo' || !row.bip125) return false;
  const said = await api.status().then(
    (s) => s.coins.find((c) => c.coin === coin)?.replacements,
    () => undefined,
  );
  return replacementsRelayedBy(coin, network, said);
}

/**
 * Pure: whether replacements reach the miners, given what the service says of its node (`said`;
 * undefined when it does not say). On mainnet the coin's network must relay them too: Litecoin Core
 * ships with -mempoolreplacement=0, so most litecoin nodes keep the first transaction even when the
 * service's own node would take a bump. Elsewhere (regtest, testnets) the service's node is the network.
 */
export function replacementsRelayedBy(coin: CoinName, network: string, said: boolean | undefined): boolean {
  const row = coinRow(coin);
  if (row.family !== 'utxo' || !row.bip125) return false;
  if (network === 'mainnet' && !relaysReplacements(coin)) return false;
  return said ?? relaysReplacements(coin);
}

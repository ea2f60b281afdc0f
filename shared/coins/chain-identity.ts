/**
 * Whether an upstream (a node, an Electrum server, a Blockbook) follows the chain a coin is
 * configured for: the network it names and its block 0, against the coin table's identity of that
 * network. One judgement for the service (at start and on every reconnection) and for the desk's
 * "Test connection", worded for the operator. Pure.
 */
import { allChainParams, type ChainParams, type NetworkName } from './coin-table.ts';

/** What an upstream says of itself; null where it does not say. */
export interface SeenChain {
  /** getblockchaininfo's `chain` ("main", "test", "regtest"). */
  chain: string | null;
  /** Its block 0's hash, hex as RPC shows it. */
  genesis: string | null;
}

/** The operator's word for a chain the table does not hold (a devnet, a private test chain): its block 0. */
export interface ChainOverride {
  genesis?: string;
}

/** bitcoind's chain names per network, for naming an upstream by its chain alone. */
const NETWORK_OF_CHAIN: Readonly<Record<string, NetworkName>> = { main: 'mainnet', test: 'testnet', regtest: 'regtest' };

/** The network of the API a node's chain name stands for; null: none (signet, a devnet). */
export function networkOfChain(chain: string): NetworkName | null {
  return NETWORK_OF_CHAIN[chain] ?? null;
}

/** What the upstream is on, in words: this coin's network, another coin's, or a chain by its name or block 0. */
function describeSeen(params: Pick<ChainParams, 'coin'>, seen: SeenChain): string {
  const genesis = seen.genesis?.toLowerCase() ?? null;
  if (genesis !== null) {
    const holders = allChainParams().filter((p) => p.identity.genesis.includes(genesis));
    const own = holders.filter((p) => p.coin === params.coin);
    // testnet3's mainnet and testnet share a block 0: the node's own name for it decides.
    const mine = own.find((p) => seen.chain !== null && p.identity.chains.includes(seen.chain)) ?? own[0];
    if (mine) return mine.network;
    if (holders[0]) return `${holders[0].coin} ${holders[0].network}`;
    return `a ${seen.chain === null ? '' : `"${seen.chain}" `}chain whose block 0 (${genesis}) is none of ${params.coin}'s`;
  }
  const network = seen.chain === null ? null : networkOfChain(seen.chain);
  return network ?? `the "${seen.chain ?? 'unknown'}" chain`;
}

/**
 * null when what the upstream says fits the coin's configured network; else why not, one sentence
 * ("the node at 127.0.0.1:19443 is on regtest, but this coin is configured for mainnet").
 * `who` names the upstream. What the upstream does not say is not held against it; a genesis
 * the table does not know for the network leaves the chain's name alone to check.
 */
export function wrongChain(params: Pick<ChainParams, 'coin' | 'network' | 'identity'>, seen: SeenChain, who: string, override: ChainOverride = {}): string | null {
  const expected = override.genesis !== undefined ? [override.genesis.toLowerCase()] : params.identity.genesis;
  const genesisFits = seen.genesis === null || expected.length === 0 || expected.includes(seen.genesis.toLowerCase());
  const chainFits = seen.chain === null || params.identity.chains.includes(seen.chain);
  if (genesisFits && chainFits) return null;
  const configured = override.genesis !== undefined ? `${params.network} with block 0 ${override.genesis.toLowerCase()}` : params.network;
  return `${who} is on ${describeSeen(params, seen)}, but this coin is configured for ${configured}`;
}

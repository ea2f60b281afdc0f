// Amount units of endpoints 11-14 (docs/api-decisions.md "Amounts"): the desk holds amounts in the smallest
// unit (wei, or a token's raw units) and the service takes GWEI (of the token). Exact, pure.
import { GWEI, tokenGweiToRaw } from '../../../shared/coins/ethereum-tx.ts';
import { unitsToDecimal } from '../../../shared/coins/units.ts';
import { CoordinatorError } from '../errors.ts';

export const ETHER_DECIMALS = 18;
/**
 * The most decimals an Ether or token amount can have on its way to the service: it takes GWEI (of
 * the token). The send screen reads amounts to this many places, so such an amount is refused as typed.
 */
export const SENDABLE_PLACES = 9;

/** Wei to the GWEI the service takes; refuses what would need a fraction of a GWEI. */
export function etherToGwei(wei: bigint): bigint {
  if (wei % GWEI !== 0n) {
    throw new CoordinatorError('bad_amount', `${unitsToDecimal(wei, ETHER_DECIMALS)} ETH has more than ${SENDABLE_PLACES} decimals: the service takes Ether in whole GWEI (0.000000001 ETH)`);
  }
  return wei / GWEI;
}

/**
 * A token's raw units to its "GWEI" (raw / 10^(decimals-9)); refuses amounts finer than that. The
 * inverse of the service's tokenGweiToRaw, checked against it.
 */
export function tokenToGwei(raw: bigint, decimals: number, symbol: string): bigint {
  let gwei: bigint;
  if (decimals >= 9) {
    const step = 10n ** BigInt(decimals - 9);
    if (raw % step !== 0n) {
      throw new CoordinatorError('bad_amount', `${unitsToDecimal(raw, decimals)} ${symbol} has more than ${SENDABLE_PLACES} decimals: the service takes token amounts in units of 10^-9 ${symbol}`);
    }
    gwei = raw / step;
  } else {
    gwei = raw * 10n ** BigInt(9 - decimals);
  }
  if (tokenGweiToRaw(gwei, decimals) !== raw) throw new CoordinatorError('internal', `token amount conversion is not exact for ${raw} at ${decimals} decimals`);
  return gwei;
}

/** "1.5 ETH", for messages. */
export const shown = (units: bigint, decimals: number, ticker: string): string => `${unitsToDecimal(units, decimals)} ${ticker}`;

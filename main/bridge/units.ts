// Units for display: ticker and URI scheme are fields of the coin's row (shared/coins/coin-data.ts).
import { coinRow, type CoinName } from '../../shared/coins/index.ts';

export { amountText, unitOf } from '../core/units.ts';

/** Payment URI scheme per coin (BIP21-style), for the receive QR code. */
export const uriScheme = (coin: CoinName): string => coinRow(coin).uriScheme;

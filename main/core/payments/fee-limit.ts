// The treasurer's maximum miners' fee per payment (issue 31): every spend the desk proposes (a
// payment, a batch, a bump, a cancel, a child paying for its parent, a vault refresh or recovery)
// passes `refuseAboveMaxFee` once, in the one spend pipeline (spend.ts), so no kind of spend, and no
// service answer that inflates a fee, can put a larger fee before the co-signers.
//
// Per coin, in the coin or in USD, kept in the desk's settings table (`max_fee.<coin>`, JSON
// {"unit":"coin"|"usd","amount":"<decimal>"}). Unset, the default is $100 per payment, the fee of a
// payment that is plainly not routine for a treasury (Electrum and Sparrow only warn, by ratio to the
// amount, which says nothing of a consolidation or a child); where the service has no USD rate for
// the coin, the default is 0.1 of the coin, Bitcoin Core's and Litecoin Core's own -maxtxfee default,
// the most their own wallets pay in one transaction.
import { z } from 'zod';
import { amountRefusalWords, parseAmount } from '../../../shared/api/amount-text.ts';
import { coinRow, type ChainParams, type CoinName } from '../../../shared/coins/index.ts';
import { unitsToDecimal } from '../../../shared/coins/units.ts';
import { CoordinatorError } from '../errors.ts';
import type { CoordinatorStore, WalletRow } from '../store/store.ts';
import { coinAmount } from '../units.ts';
import type { CoreDeps } from '../wallets/wallets.ts';

export type MaxFeeUnit = 'coin' | 'usd';

/** A maximum as the treasurer set it: an amount in smallest units of the coin, or in US cents. */
export interface MaxFee {
  unit: MaxFeeUnit;
  /** Smallest units of the coin (unit coin) or cents (unit usd). */
  amount: bigint;
  /** Not set by the treasurer: the desk's default. */
  isDefault: boolean;
}

export const DEFAULT_MAX_FEE_CENTS = 100_00n;
const USD_DECIMALS = 2;

export const maxFeeSettingKey = (coin: CoinName): string => `max_fee.${coin}`;

const Stored = z.object({ unit: z.enum(['coin', 'usd']), amount: z.string().regex(/^[0-9]+$/) }).strict();

/** 0.1 of the coin: Core's -maxtxfee default, the fallback where no USD rate is known. */
export const fallbackMaxFee = (decimals: number): bigint => 10n ** BigInt(decimals - 1);

/** The maximum for `coin`: the saved one, or the default ($100); a stored value the desk cannot read counts as unset. */
export function maxFeeOf(store: Pick<CoordinatorStore, 'setting'>, coin: CoinName): MaxFee {
  const raw = store.setting(maxFeeSettingKey(coin));
  if (raw !== null) {
    try {
      const parsed = Stored.safeParse(JSON.parse(raw));
      if (parsed.success && BigInt(parsed.data.amount) > 0n) return { unit: parsed.data.unit, amount: BigInt(parsed.data.amount), isDefault: false };
    } catch {
      // Not JSON: the default below.
    }
  }
  return { unit: 'usd', amount: DEFAULT_MAX_FEE_CENTS, isDefault: true };
}

/** "$1,250.00": cents as the desk writes dollars. Pure. */
export function usdText(cents: bigint): string {
  const whole = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `$${whole}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** A maximum in words: "0.001 LTC" or "$100.00". */
export function maxFeeWords(m: Pick<MaxFee, 'unit' | 'amount'>, params: ChainParams): string {
  return m.unit === 'usd' ? usdText(m.amount) : coinAmount(params, m.amount);
}

/** What the treasurer typed for a maximum, read; a refusal in words (field max_fee) for a hurried typo. */
export function typedMaxFee(coin: CoinName, unit: MaxFeeUnit, text: string): bigint {
  const decimals = unit === 'usd' ? USD_DECIMALS : coinRow(coin).decimals;
  const ticker = unit === 'usd' ? 'USD' : coinRow(coin).ticker;
  const reading = parseAmount(text, decimals);
  if (!reading.ok) {
    const words = reading.refusal.kind === 'zero' ? `a maximum fee of zero would refuse every payment; type the most you would pay in one payment's fee, in ${ticker}` : amountRefusalWords(reading, { ticker });
    throw new CoordinatorError('bad_setting', words, { field: 'max_fee' });
  }
  return reading.units;
}

/** Saves the maximum for `coin` (null: back to the default), with its audit entry, in one write. */
export function saveMaxFee(deps: Pick<CoreDeps, 'store' | 'actor'>, coin: CoinName, chosen: { unit: MaxFeeUnit; amount: bigint } | null): MaxFee {
  const decimals = coinRow(coin).decimals;
  deps.store.transaction(() => {
    deps.store.setSettings({ [maxFeeSettingKey(coin)]: chosen === null ? null : JSON.stringify({ unit: chosen.unit, amount: chosen.amount.toString() }) });
    const words = chosen === null ? `the default (${usdText(DEFAULT_MAX_FEE_CENTS)})` : chosen.unit === 'usd' ? usdText(chosen.amount) : `${unitsToDecimal(chosen.amount, decimals)} ${coinRow(coin).ticker}`;
    deps.store.audit(deps.actor, 'settings.max_fee', `the maximum miners' fee per ${coin} payment is ${words}`);
  });
  return maxFeeOf(deps.store, coin);
}

/** Today's USD value of an amount of `coin`, from the service's rate; null when it has none (or cannot say). */
export async function usdValue(api: Pick<CoreDeps['api'], 'priceHistory'>, coin: CoinName, units: bigint, decimals: number): Promise<number | null> {
  try {
    const [rate] = (await api.priceHistory(coin, [Math.floor(Date.now() / 1000)])).rates;
    return rate?.usd_rate == null ? null : (Number(units) / 10 ** decimals) * rate.usd_rate;
  } catch {
    return null;
  }
}

const dollars = (usd: number): string => `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/**
 * Why `fee` is refused for a payment of wallet `w`, in words, or null when it is within the
 * treasurer's maximum. A maximum in USD with no USD rate from the service is refused (the desk
 * cannot check it), except the default, which then falls back to 0.1 of the coin.
 */
export async function maxFeeRefusal(deps: Pick<CoreDeps, 'store' | 'api'>, w: Pick<WalletRow, 'coin'>, params: ChainParams, fee: bigint): Promise<string | null> {
  const max = maxFeeOf(deps.store, w.coin);
  const usd = await usdValue(deps.api, w.coin, fee, params.decimals);
  const feeWords = `${coinAmount(params, fee)}${usd === null ? '' : ` (${dollars(usd)})`}`;
  const raise = 'raise it in Settings if you mean it';
  if (max.unit === 'coin') return fee > max.amount ? `the fee ${feeWords} is above your maximum of ${coinAmount(params, max.amount)} per payment; ${raise}` : null;
  if (usd === null) {
    if (!max.isDefault) return `the fee ${feeWords} cannot be checked against your maximum of ${usdText(max.amount)} per payment: the service has no USD rate for ${w.coin} now; set the maximum in ${coinRow(w.coin).ticker} in Settings, or try again later`;
    const fallback = fallbackMaxFee(params.decimals);
    return fee > fallback ? `the fee ${feeWords} is above the default maximum of ${coinAmount(params, fallback)} per payment (the service has no USD rate for the $100 default); ${raise}` : null;
  }
  // Compared in cents, rounded up: a fee a fraction of a cent above the maximum is above it.
  const cents = BigInt(Math.ceil(usd * 100 - 1e-9));
  return cents > max.amount ? `the fee ${feeWords} is above your ${max.isDefault ? 'default ' : ''}maximum of ${usdText(max.amount)} per payment; ${raise}` : null;
}

/** The one check spend.ts makes: refuses through `refuse` when the fee is above the maximum. */
export async function refuseAboveMaxFee(deps: Pick<CoreDeps, 'store' | 'api'>, w: Pick<WalletRow, 'coin'>, params: ChainParams, fee: bigint, refuse: (why: string) => never): Promise<void> {
  const why = await maxFeeRefusal(deps, w, params, fee);
  if (why !== null) refuse(why);
}

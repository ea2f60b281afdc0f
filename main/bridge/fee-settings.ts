// The settings.maxFee channel: a thin translation over main/core/payments/fee-limit.ts.
import { coinRow, type UtxoCoinName } from '../../shared/coins/index.ts';
import { unitsToDecimal } from '../../shared/coins/units.ts';
import { DEFAULT_MAX_FEE_CENTS, fallbackMaxFee, maxFeeOf, saveMaxFee, typedMaxFee, usdText, type MaxFee } from '../core/payments/fee-limit.ts';
import type { CoreDeps } from '../core/wallets/wallets.ts';
import type { MaxFeeView } from './contract.ts';
import type { Handlers } from './dispatch.ts';

function view(coin: UtxoCoinName, m: MaxFee): MaxFeeView {
  const { ticker, decimals } = coinRow(coin);
  const amount = m.unit === 'usd' ? unitsToDecimal(m.amount, 2) : unitsToDecimal(m.amount, decimals);
  const words = m.isDefault
    ? `at most ${usdText(DEFAULT_MAX_FEE_CENTS)} in miners' fees per payment (the default; ${unitsToDecimal(fallbackMaxFee(decimals), decimals)} ${ticker} where the service has no USD rate)`
    : `at most ${m.unit === 'usd' ? usdText(m.amount) : `${amount} ${ticker}`} in miners' fees per payment`;
  return { coin, unit: m.unit, amount, ticker, is_default: m.isDefault, words };
}

export function createFeeSettingHandlers(deps: Pick<CoreDeps, 'store' | 'actor'>): Pick<Handlers, 'settings.maxFee'> {
  return {
    'settings.maxFee': async ({ coin, unit, amount, reset }) => {
      if (reset) return view(coin, saveMaxFee(deps, coin, null));
      if (amount === undefined) return view(coin, maxFeeOf(deps.store, coin));
      const chosen = unit ?? maxFeeOf(deps.store, coin).unit;
      return view(coin, saveMaxFee(deps, coin, { unit: chosen, amount: typedMaxFee(coin, chosen, amount) }));
    },
  };
}

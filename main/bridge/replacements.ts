// The payments.feeEstimates, payments.replace and payments.cpfp channels: thin translations over
// main/core/payments/replace.ts and cpfp.ts.
import { proposeCpfp } from '../core/payments/cpfp.ts';
import { proposeBump, proposeCancel } from '../core/payments/replace.ts';
import { requireWallet, walletParams } from '../core/wallets/wallets.ts';
import { usdValue } from '../core/payments/fee-limit.ts';
import type { CoreDeps } from '../core/wallets/wallets.ts';
import type { Handlers } from './dispatch.ts';
import { paymentDetail } from './views.ts';

export function createReplacementHandlers(core: CoreDeps): Pick<Handlers, 'payments.feeEstimates' | 'payments.replace' | 'payments.cpfp'> {
  return {
    'payments.feeEstimates': async ({ wallet_id }) => {
      const f = await core.api.feeEstimates(requireWallet(core, wallet_id).coin);
      return { presets: f.estimates.map((e) => ({ blocks: e.blocks, fee_rate: e.fee_rate, source: e.source })), fallback_fee_rate: f.fallback_fee_rate };
    },
    'payments.replace': async ({ payment_id, action, fee_rate }) => {
      const p = action === 'bump' ? await proposeBump(core, payment_id, fee_rate) : await proposeCancel(core, payment_id, fee_rate);
      return paymentDetail(core, p.id);
    },
    'payments.cpfp': async ({ wallet_id, txid, vout, target_rate }) => {
      const w = requireWallet(core, wallet_id);
      const { payment, package: pkg } = await proposeCpfp(core, wallet_id, { txid: txid.toLowerCase(), ...(vout !== undefined ? { vout } : {}) }, target_rate);
      return {
        payment: paymentDetail(core, payment.id),
        parent: { miners_fee: pkg.parentFee, vsize: pkg.parentVsize, ancestors: pkg.ancestors },
        child: { miners_fee: pkg.childFee, vsize: pkg.childVsize, usd: await usdValue(core.api, w.coin, pkg.childFee, walletParams(w).decimals) },
        package_rate: pkg.rate,
        parent_counted: pkg.parentCounted,
        left_out: pkg.leftOut,
      };
    },
  };
}

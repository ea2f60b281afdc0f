// Extension: GET /fee_estimates/{coin} (docs/api-decisions.md, section 8). The upstream's estimate
// per confirmation target, in coins per 1000 vbytes as it writes them, becomes units per vbyte
// exactly (bigint, no float), or the configured fallback where the upstream has none.
import type { FeeEstimates } from '../../shared/api/schemas.ts';
import type { UtxoBackend } from '../chains/backend.ts';
import { UpstreamFailure } from '../errors.ts';

export const FEE_TARGETS = [1, 6, 24] as const;

const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/**
 * A rate in coins per 1000 vbytes (decimal text, as a node's estimatesmartfee writes it) as smallest
 * units per 1000 vbytes and per vbyte, both rounded up to a whole unit (never underpaying); null
 * when the text is no non-negative decimal.
 */
export function coinsPerKvbToUnits(text: string, decimals: number): { perKvb: bigint; perVbyte: bigint } | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const fraction = m[2] ?? '';
  const exponent = m[3] === undefined ? 0 : Number(m[3]);
  if (Math.abs(exponent) > 60) return null;
  // value = digits x 10^(exponent - fraction digits) coins; x 10^decimals units.
  const digits = BigInt(m[1]! + fraction);
  const shift = decimals + exponent - fraction.length;
  const numerator = shift >= 0 ? digits * 10n ** BigInt(shift) : digits;
  const denominator = shift >= 0 ? 1n : 10n ** BigInt(-shift);
  return { perKvb: ceilDiv(numerator, denominator), perVbyte: ceilDiv(numerator, denominator * 1000n) };
}

export async function feeEstimates(backend: UtxoBackend): Promise<FeeEstimates> {
  const { params } = backend;
  const upstream = await backend.feeEstimates(FEE_TARGETS);
  const fallbackPerVbyte = ceilDiv(upstream.fallbackFeePerKb, 1000n);
  return {
    coin: params.coin,
    backend: upstream.backend,
    fallback_fee_rate: Number(fallbackPerVbyte),
    estimates: FEE_TARGETS.map((blocks, i) => {
      const text = upstream.estimates[i] ?? null;
      if (text === null) return { blocks, fee_rate: Number(fallbackPerVbyte), units_per_kvbyte: Number(upstream.fallbackFeePerKb), source: 'fallback' as const };
      const rate = coinsPerKvbToUnits(text, params.decimals);
      if (!rate) throw new UpstreamFailure(false, `the ${upstream.backend} backend of ${params.coin} answered a fee estimate of ${JSON.stringify(text.slice(0, 40))}, not a rate`);
      return { blocks, fee_rate: Number(rate.perVbyte), units_per_kvbyte: Number(rate.perKvb), source: 'node' as const };
    }),
  };
}

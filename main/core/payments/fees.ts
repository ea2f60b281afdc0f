// Fee rates for a proposal: the presets from the service's estimates (fast / normal / slow are
// 1 / 6 / 24 blocks), and the desk's check of the fee a service built at a given rate. Pure.
import type { FeeEstimates } from '../../../shared/api/schemas.ts';
import { coinRow, type ChainParams, type CoinName } from '../../../shared/coins/index.ts';
import { coinAmount } from '../../../shared/coins/units.ts';
import { feeRateText } from '../units.ts';

export type FeePresetName = 'fast' | 'normal' | 'slow';
export interface FeePreset {
  name: FeePresetName;
  blocks: number;
  /** Smallest units per vbyte. */
  rate: bigint;
  /** True when the node had no estimate and the service's configured fallback rate is given. */
  fallback: boolean;
}

export const PRESET_BLOCKS: Record<FeePresetName, number> = { fast: 1, normal: 6, slow: 24 };

/** The three presets, each from the estimate for its target (the fallback rate when there is none). */
export function feePresets(estimates: FeeEstimates): FeePreset[] {
  return (Object.entries(PRESET_BLOCKS) as [FeePresetName, number][]).map(([name, blocks]) => {
    const e = estimates.estimates.find((x) => x.blocks === blocks);
    return { name, blocks, rate: BigInt(e?.fee_rate ?? estimates.fallback_fee_rate), fallback: e === undefined || e.source === 'fallback' };
  });
}

/** The vbytes of the largest output a change could be (P2WSH: value 8, length 1, script 34). */
const CHANGE_OUTPUT_VBYTES = 43n;

/**
 * Why a fee the service built at `rate` is not one the desk accepts, or null. With change the fee
 * is exactly rate x vsize; without, change under the dust limit went to the miners as well, so the
 * fee may exceed that by at most the change output the service left out plus the dust limit.
 */
export function rateFeeRefusal(params: Pick<ChainParams, 'dustLimit' | 'coin' | 'network' | 'decimals'>, rate: bigint, vsize: number, fee: bigint, hasChange: boolean): string | null {
  const shown = (units: bigint) => coinAmount(params, units);
  // The rate in the coin's smallest unit ("20 litoshi/vB"), as the fee choice on screen names it.
  const perVbyte = feeRateText(params, rate);
  const least = rate * BigInt(vsize);
  if (fee < least) return `the fee ${shown(fee)} is below ${perVbyte} x ${vsize} vbytes = ${shown(least)}`;
  if (hasChange && fee !== least) return `the fee ${shown(fee)} is not ${perVbyte} x ${vsize} vbytes = ${shown(least)}`;
  const most = rate * (BigInt(vsize) + CHANGE_OUTPUT_VBYTES) + params.dustLimit;
  if (!hasChange && fee >= most) return `the fee ${shown(fee)} is above what ${perVbyte} and dust change make (under ${shown(most)})`;
  return null;
}

/** The fee as a share of what the payment pays, in percent with two decimals (rounded up). */
export function feeShare(fee: bigint, paid: bigint): string {
  if (paid <= 0n) return '—';
  const hundredths = (fee * 10_000n + paid - 1n) / paid;
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}%`;
}

/**
 * Whether the coin's network relays BIP125 replacements by default (its row's bip125 and
 * replacementsByDefault: not litecoin, whose Litecoin Core needs -mempoolreplacement=1). What the
 * desk assumes when the service does not say what its node does (service-status.ts).
 */
export function relaysReplacements(coin: CoinName): boolean {
  const row = coinRow(coin);
  return row.family === 'utxo' && row.bip125 && row.replacementsByDefault;
}

/**
 * Whether a spend the treasurer asked replaceable (`asked`: their choice, or the desk setting)
 * signals BIP125: the coin's own row alone, never the service's word, so the bytes co-signers sign
 * do not hinge on what the service says of its node. Signalling is harmless on a node that does not
 * relay replacements (the payment is relayed and mined as any; only a later replacement would be
 * refused): whether a bump is offered is decided then (replace.ts whyNotReplaceable), from /status.
 */
export function signalsReplacement(coin: CoinName, asked: boolean): boolean {
  const row = coinRow(coin);
  return asked && row.family === 'utxo' && row.bip125;
}

/** The desk setting that turns replaceable-by-default off ('false'); absent means on. */
export const REPLACEABLE_SETTING = 'payments_replaceable';

/** Whether new payments ask to be replaceable (where the coin allows it): on unless turned off. */
export const replaceableByDefault = (store: { setting(key: string): string | null }): boolean => store.setting(REPLACEABLE_SETTING) !== 'false';

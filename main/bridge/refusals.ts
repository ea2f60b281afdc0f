// A payment draft's refusals in words, amounts in the coin's unit with its ticker. Pure.
import type { DraftRefusal } from '../core/payments/draft.ts';
import type { Unit } from './contract.ts';
import { amountText } from './units.ts';

const FIELD_NAMES: Record<DraftRefusal['field'], string> = {
  to: 'The address',
  amount: 'The amount',
  miners_fee: "The miners' fee",
  'operator.address': 'The operator fee address',
  'operator.fee_amount': 'The operator fee',
};

export function draftRefusalWords(r: DraftRefusal, unit: Unit): string {
  switch (r.kind) {
    case 'address':
      return r.words;
    case 'dust':
      return `${FIELD_NAMES[r.field]} is below the dust limit of ${amountText(r.limit, unit)}: the network does not relay so small an output.`;
    case 'insufficient':
      return `The wallet has ${amountText(r.holds, unit)} free to spend; this payment needs ${amountText(r.needs, unit)} for the amount${r.operatorFee ? ', the operator fee' : ''} and the miners' fee.`;
    case 'negative':
      return "The miners' fee cannot be negative.";
  }
}

// The earlier revision of the API (spec section 9), served under /v1 beside v2: the forms that
// differ from v2 are here; everything else is v2's own schema (schemas.ts).
import { z } from 'zod';
import { UnitsOut } from './amounts.ts';
import { Balance, CreateTransactionQuery, HashesToSign, SpecUtxo } from './schemas.ts';

const index = z.number().int().nonnegative();

/** v1 types usd_balance as an integer: whole US dollars, rounded. */
export const BalanceV1 = Balance.extend({ usd_balance: z.number().int().describe('USD value in whole dollars (rounded): v1 types it as an integer') });
export type BalanceV1 = z.infer<typeof BalanceV1>;
export const AddrBalanceV1 = BalanceV1.extend({ address: z.string() });
export const BalancesV1 = z.object({ totals: BalanceV1, addresses: z.array(AddrBalanceV1) });
export type BalancesV1 = z.infer<typeof BalancesV1>;

/** GET /v1/address/utxo/{coin}/{addresses}: a bare array, not v2's {utxos: [...]}. */
export const UtxosV1 = z.array(SpecUtxo);
export type UtxosV1 = z.infer<typeof UtxosV1>;

export const TxEndpointV1 = z.object({
  amount: UnitsOut.describe('smallest unit'),
  address: z.string().describe('the address the script pays to; empty for scripts without an address form (OP_RETURN, bare multisig)'),
});
export const HistoryTxV1 = z.object({
  blockheight: z.number().int().min(-1).describe('height of the block holding the transaction; -1 while in the mempool'),
  time: index.describe('block time (Unix seconds); first-seen time while unconfirmed'),
  total_out: UnitsOut.describe('sum of the outputs, smallest unit'),
  total_in: UnitsOut.describe('sum of the inputs, smallest unit (0 for a coinbase)'),
  fees: UnitsOut.describe('total_in - total_out (0 for a coinbase)'),
  vins: z.array(TxEndpointV1),
  vouts: z.array(TxEndpointV1),
  txid: z.string().optional().describe('Extension beyond the spec: the transaction id.').meta({ 'x-countersign-extension': true }),
});
export type HistoryTxV1 = z.infer<typeof HistoryTxV1>;
export const HistoryV1 = z.object({
  total_txs: index.describe('number of (transaction, queried address) pairs, as in v2; a page lists each transaction once'),
  txs: z.array(HistoryTxV1),
});
export type HistoryV1 = z.infer<typeof HistoryV1>;

/** v1 create (6): fee_amount typed string (digits of the smallest unit). */
export const CreateTransactionQueryV1 = CreateTransactionQuery.extend({
  fee_amount: z
    .string()
    .regex(/^[0-9]{1,78}$/, 'must be a whole number of the smallest unit')
    .transform((v) => BigInt(v))
    .optional(),
});
export type CreateTransactionQueryV1 = z.input<typeof CreateTransactionQueryV1>;

/** v1 create response: no total_input_value. */
export const HashesToSignV1 = HashesToSign.omit({ total_input_value: true, miners_fee: true, vsize: true, replaces: true });
export type HashesToSignV1 = z.infer<typeof HashesToSignV1>;

const hexList = (what: string) => z.array(z.string().regex(/^(0x)?([0-9a-fA-F]{2})*$/, `${what} must be hex`)).max(10_000);

/**
 * v1 sign-and-send (7) by query parameters: the i-th entries of public_keys, signatures,
 * input_indexes (and hashes_to_sign, when given) describe one signature. Arrays are repeated
 * parameters (?signatures=a&signatures=b) or comma-separated values.
 */
export const SignAndSendQueryV1 = z.object({
  tx: z.string().regex(/^(0x)?([0-9a-fA-F]{2})+$/, 'tx must be hex'),
  public_keys: hexList('public_keys').min(1, 'public_keys needs at least one key'),
  signatures: hexList('signatures').min(1, 'signatures needs at least one signature'),
  hashes_to_sign: hexList('hashes_to_sign').optional(),
  input_indexes: z.array(z.coerce.number().int().nonnegative()).min(1, 'input_indexes needs at least one index').max(10_000),
});
export type SignAndSendQueryV1 = z.infer<typeof SignAndSendQueryV1>;

/** The query keys of SignAndSendQueryV1 that hold arrays. */
export const V1_ARRAY_PARAMS = ['public_keys', 'signatures', 'hashes_to_sign', 'input_indexes'] as const;

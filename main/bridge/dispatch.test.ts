// The bridge boundary words every refusal for the screen and names the field it concerns; only
// real bugs become the generic message (and go to the log).
import { describe, expect, it } from 'vitest';
import { ApiClientError } from '../../shared/api/client.ts';
import { CoinError, chainParams } from '../../shared/coins/index.ts';
import { CoordinatorError } from '../core/errors.ts';
import { BatchRefusedError } from '../core/payments/batch.ts';
import { DraftRefusedError } from '../core/payments/draft.ts';
import { dispatch, type Handlers } from './dispatch.ts';

const throwing = (err: unknown) => ({ 'payments.get': () => Promise.reject(err) }) as unknown as Handlers;
const failure = async (err: unknown) => {
  const reported: unknown[] = [];
  const r = await dispatch(throwing(err), 'payments.get', { payment_id: 'p1' }, (e) => reported.push(e));
  if (r.ok) throw new Error('expected a failure');
  return { ...r.error, reported: reported.length };
};

describe('failures become words the treasurer reads', () => {
  it('carries a coin codec refusal through with its words and field', async () => {
    const err = new CoinError('to: address "QNotAnAddress123" is not a valid litecoin regtest address: bad checksum (a character is mistyped or missing)', 'to');
    expect(await failure(err)).toEqual({ code: 'bad_input', message: err.message, field: 'to', reported: 0 });
  });

  it('words a draft refusal in the coin unit, at its field', async () => {
    const err = new DraftRefusedError({ field: 'amount', kind: 'insufficient', holds: 1_300_000_000n, needs: 5_000_020_000n, operatorFee: false }, chainParams('litecoin', 'regtest'));
    expect(await failure(err)).toEqual({ code: 'proposal_refused', message: "The wallet has 13 LTC (regtest) free to spend; this payment needs 50.0002 LTC (regtest) for the amount and the miners' fee.", field: 'amount', reported: 0 });
  });

  it('words every bad row of a batch by its line, in the coin unit', async () => {
    const err = new BatchRefusedError(
      [
        { line: 3, kind: 'address', words: 'address "x" is not a valid litecoin regtest address' },
        { line: 7, kind: 'dust', amount: 1n, limit: 5460n },
      ],
      chainParams('litecoin', 'regtest'),
    );
    expect(await failure(err)).toEqual({
      code: 'proposal_refused',
      message: 'refusing the batch, nothing is proposed: line 3: address "x" is not a valid litecoin regtest address; line 7: the amount 0.00000001 LTC (regtest) is below the dust limit of 0.0000546 LTC (regtest)',
      field: 'outputs',
      reported: 0,
    });
  });

  it('names the wallet a refusal concerns', async () => {
    expect(await failure(new CoordinatorError('duplicate_wallet', 'already the wallet "A"', { walletId: 'w1' }))).toEqual({ code: 'duplicate_wallet', message: 'already the wallet "A"', wallet_id: 'w1', reported: 0 });
  });

  it("passes the service's own words when it refuses a request, and says when it failed", async () => {
    expect(await failure(new ApiClientError(400, 'amount 0.00000001 LTC is below the dust limit of 0.0000546 LTC'))).toMatchObject({ code: 'service_refused', message: 'the service refused: amount 0.00000001 LTC is below the dust limit of 0.0000546 LTC' });
    expect(await failure(new ApiClientError(502, 'the node did not answer'))).toMatchObject({ code: 'service', message: 'the service failed: the node did not answer' });
  });

  it('keeps the generic message for real bugs, and reports them', async () => {
    expect(await failure(new TypeError('x is undefined'))).toEqual({ code: 'internal', message: 'something unexpected went wrong in the desk; see its log', reported: 1 });
  });
});

// The bridge boundary, shared by both transports: the channel must be on the allow-list, the input
// must pass its zod schema, and any failure becomes { code, message } a treasurer can read.
import { ZodError } from 'zod';
import { ApiClientError } from '../../shared/api/client.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { FileFormatError, PaymentCheckError } from '../../shared/files/errors.ts';
import { RelayRefusal } from '../../shared/relay/errors.ts';
import { CoordinatorError } from '../core/errors.ts';
import { BatchRefusedError, rowRefusalWords } from '../core/payments/batch.ts';
import { DraftRefusedError } from '../core/payments/draft.ts';
import { inputs, isChannel, type BridgeFailure, type BridgeOutput, type BridgeResult, type Channel, type Inputs } from './contract.ts';
import { draftRefusalWords } from './refusals.ts';
import { unitOf } from './units.ts';
import type { z } from 'zod';

export type Handlers = { [C in Channel]: (input: z.output<Inputs[C]>) => Promise<BridgeOutput<C>> };

function failureOf(err: unknown, report: (err: unknown) => void): BridgeFailure {
  if (err instanceof DraftRefusedError) {
    const { coin, network, decimals } = err.params;
    return { code: err.code, message: draftRefusalWords(err.refusal, unitOf(coin, network, decimals)), field: err.refusal.field };
  }
  if (err instanceof BatchRefusedError) {
    const { coin, network, decimals } = err.params;
    const { ticker } = unitOf(coin, network, decimals);
    return { code: err.code, message: `refusing the batch, nothing is proposed: ${err.refusals.map((r) => rowRefusalWords(r, decimals, ticker)).join('; ')}`, field: 'outputs' };
  }
  if (err instanceof CoordinatorError) {
    const { field, walletId } = err.subject;
    return { code: err.code, message: err.message, ...(field ? { field } : {}), ...(walletId ? { wallet_id: walletId } : {}) };
  }
  // Refusals of the coin codecs and file checks are written for a treasurer: shown in their words.
  if (err instanceof CoinError) return { code: 'bad_input', message: err.message, ...(err.field ? { field: err.field } : {}) };
  if (err instanceof FileFormatError) return { code: 'malformed', message: err.message };
  if (err instanceof PaymentCheckError) return { code: err.code, message: err.message };
  // The relay's own refusals (a mistyped invitation code, an invitation that does not open) are words too.
  if (err instanceof RelayRefusal) return { code: 'relay_refused', message: err.message };
  if (err instanceof ApiClientError) {
    // 4xx: the service refused what was asked, and says why; otherwise it failed or did not answer.
    if (err.status >= 400 && err.status < 500) return { code: 'service_refused', message: `the service refused: ${err.message}` };
    return { code: 'service', message: `the service failed: ${err.message}` };
  }
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    const field = issue?.path.join('.') ?? '';
    return { code: 'bad_input', message: `${field || 'input'}: ${issue?.message ?? 'invalid'}`, ...(field ? { field } : {}) };
  }
  report(err);
  // Unexpected errors are logged in full but shown without internals (they may hold paths or keys).
  return { code: 'internal', message: 'something unexpected went wrong in the desk; see its log' };
}

export async function dispatch(handlers: Handlers, channel: string, raw: unknown, report: (err: unknown) => void = () => undefined): Promise<BridgeResult<unknown>> {
  if (!isChannel(channel)) return { ok: false, error: { code: 'forbidden', message: `no bridge channel "${channel.slice(0, 60)}"` } };
  try {
    const input: unknown = inputs[channel].parse(raw ?? {});
    const handler = handlers[channel] as (input: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(input) };
  } catch (err) {
    return { ok: false, error: failureOf(err, report) };
  }
}

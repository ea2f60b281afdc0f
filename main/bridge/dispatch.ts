// The bridge boundary, shared by both transports: the channel must be on the allow-list, the input
// must pass its zod schema, and any failure becomes { code, message } a treasurer can read.
import { ZodError } from 'zod';
import { ApiClientError } from '../../shared/api/client.ts';
import { CoordinatorError } from '../core/errors.ts';
import { inputs, isChannel, type BridgeFailure, type BridgeOutput, type BridgeResult, type Channel, type Inputs } from './contract.ts';
import type { z } from 'zod';

export type Handlers = { [C in Channel]: (input: z.output<Inputs[C]>) => Promise<BridgeOutput<C>> };

function failureOf(err: unknown, report: (err: unknown) => void): BridgeFailure {
  if (err instanceof CoordinatorError) return { code: err.code, message: err.message };
  if (err instanceof ApiClientError) return { code: 'service', message: `the service failed: ${err.message}` };
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    return { code: 'bad_input', message: `${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}` };
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

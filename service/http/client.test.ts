// The shared typed client over real HTTP against the service: parsed with the contract's schemas,
// errors surfaced with the service's message, amounts exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ApiClientError } from '../../shared/api/client.ts';
import { parseApiJson, stringifyApiJson } from '../../shared/api/json.ts';
import { startTestService, type TestService } from '../test/http-service.ts';

let t: TestService;
let baseUrl: string;
beforeAll(async () => {
  t = await startTestService({
    listen: { host: '127.0.0.1', port: 0 },
    coins: { dash: { network: 'mainnet', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1' } } },
  });
  baseUrl = await t.service.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t?.dispose());

describe('ApiClient', () => {
  it('reads a balance through the contract', async () => {
    const client = new ApiClient({ baseUrl, apiKey: t.apiKey });
    expect(await client.balance('dash', 'XpESxaUmonkq8RaLLp46Brx2K39ggQe226')).toEqual({
      usd_balance: 0,
      balance: 0n,
      unconfirmed_balance: 0n,
      human_balance: 0,
      human_unconfirmed_balance: 0,
    });
    expect((await client.status()).coins[0]).toMatchObject({ coin: 'dash', network: 'mainnet', backend: 'node-rpc' });
  });

  it('surfaces the service\'s status and message', async () => {
    const anonymous = new ApiClient({ baseUrl });
    await expect(anonymous.status()).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/X-API-KEY/) });
    const client = new ApiClient({ baseUrl, apiKey: t.apiKey });
    const err = await client.balance('dash', 'nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiClientError);
    expect(err).toMatchObject({ status: 400, message: expect.stringMatching(/"nope"/) });
    const down = new ApiClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'x' });
    await expect(down.status()).rejects.toMatchObject({ status: 0, message: expect.stringMatching(/cannot be reached/) });
  });

  // Found by the hostile-service bench (issue 31): a field left out of an answer was refused in the
  // schema's jargon ("Invalid input: expected string, received undefined"), naming no field.
  it('refuses an answer that breaks the contract naming the field, in words', async () => {
    const dropping: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const body = parseApiJson(await res.text()) as { coins: Record<string, unknown>[] };
      const { network: _, ...coin } = body.coins[0]!;
      return new Response(stringifyApiJson({ ...body, coins: [coin] }), { status: res.status });
    };
    const client = new ApiClient({ baseUrl, apiKey: t.apiKey, fetch: dropping });
    await expect(client.status()).rejects.toThrow("the service's answer does not match the API contract: coins[0].network is missing");
  });

  it('keeps amounts above 2^53 exact both ways', () => {
    const big = 2n ** 70n + 3n;
    const text = stringifyApiJson({ balance: big, human_balance: 1.5, amount: 7n });
    expect(text).toBe(`{"balance":${big},"human_balance":1.5,"amount":7}`);
    expect(parseApiJson(text)).toEqual({ balance: big, human_balance: 1.5, amount: 7n });
  });
});

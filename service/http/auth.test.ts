// Failed authentications are limited per client address: after maxFailures in the window, that
// address is answered 429 with Retry-After in place of 401; other addresses keep their own count,
// and a valid key is never refused (many clients may share an address behind a proxy or a NAT).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/http-service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ auth: { maxFailures: 3, failureWindowSeconds: 600 } });
});
afterAll(async () => {
  await t?.dispose();
});

const from = (ip: string, key?: string) =>
  t.service.app.inject({ method: 'GET', url: '/status', remoteAddress: ip, headers: key === undefined ? {} : { 'x-api-key': key } });
const WRONG = 'cs_000000000000_notAKeyOfThisServiceAtAll0000000';

describe('failed authentications per client address', () => {
  it('answers the failures beyond the limit with 429 and Retry-After, missing and wrong keys alike', async () => {
    expect((await from('10.0.0.1')).statusCode).toBe(401);
    expect((await from('10.0.0.1', WRONG)).statusCode).toBe(401);
    expect((await from('10.0.0.1', 'not even a key')).statusCode).toBe(401);
    const limited = await from('10.0.0.1', WRONG);
    expect(limited.statusCode).toBe(429);
    // a failure comes back every 600 s / 3 (less the moments these requests took)
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThan(100);
    expect(retry).toBeLessThanOrEqual(200);
    expect(JSON.parse(limited.body)).toEqual({ message: `too many failed authentications from this address (this deployment allows 3 per 600 s): retry in ${retry} s with a valid X-API-KEY` });
    expect((await from('10.0.0.1')).statusCode).toBe(429);
  });

  it('still lets a valid key through from that address', async () => {
    expect((await from('10.0.0.1', t.apiKey)).statusCode).toBe(200);
    expect((await from('10.0.0.1', WRONG)).statusCode).toBe(429);
  });

  it('leaves every other address its own count', async () => {
    expect((await from('10.0.0.2', WRONG)).statusCode).toBe(401);
    expect((await from('10.0.0.2', t.apiKey)).statusCode).toBe(200);
    expect((await from('2001:db8::7', WRONG)).statusCode).toBe(401);
  });

  it('never counts the open probes', async () => {
    for (let i = 0; i < 5; i++) expect((await t.service.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.0.0.3' })).statusCode).toBe(200);
    expect((await from('10.0.0.3', WRONG)).statusCode).toBe(401);
  });

  it('is on by default: 10 failures a minute', async () => {
    const d = await startTestService({});
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await d.service.app.inject({ method: 'GET', url: '/status', remoteAddress: '10.0.0.9' })).statusCode);
      expect(statuses).toEqual([...Array<number>(10).fill(401), 429]);
      expect(d.service.config.auth).toMatchObject({ maxFailures: 10, failureWindowSeconds: 60 });
    } finally {
      await d.dispose();
    }
  });
});

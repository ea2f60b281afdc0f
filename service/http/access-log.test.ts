// The access log: one line per request; reads answered well at debug, everything else at info;
// the API key's id, never the key, nor any secret the URL or the headers carry.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createService, type Service } from '../service.ts';
import { createApiKey } from '../store/api-keys.ts';
import { requestLogger } from './access-log.ts';

const lines: Array<Record<string, unknown>> = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
const dir = mkdtempSync(join(tmpdir(), 'countersign-access-log-'));
let service: Service;
let key: { id: string; key: string };

beforeAll(async () => {
  service = await createService(
    {
      database: { sqlite: join(dir, 'service.sqlite') },
      // Never contacted: these requests are answered from the empty index or refused first.
      coins: { litecoin: { network: 'mainnet', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1', username: 'u', password: 'p' } } },
    },
    { logger },
  );
  key = await createApiKey(service.store, 'access-log test');
});
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  logger.level = 'info';
  lines.length = 0;
});

const requestLines = () => lines.filter((l) => l.msg === 'request');
const get = (url: string, headers: Record<string, string> = { 'x-api-key': key.key }) => service.app.inject({ method: 'GET', url, headers });

describe('access log', () => {
  it('writes no line at info for a read answered well', async () => {
    expect((await get('/status')).statusCode).toBe(200);
    expect(requestLines()).toEqual([]);
  });

  it('writes one line at debug for it, with the key id and not the key', async () => {
    logger.level = 'debug';
    expect((await get('/status')).statusCode).toBe(200);
    expect(requestLines()).toEqual([expect.objectContaining({ level: 20, method: 'GET', url: '/status', status: 200, apiKey: key.id, ms: expect.any(Number) })]);
    expect(JSON.stringify(lines)).not.toContain(key.key);
  });

  it('writes a refusal at info, once', async () => {
    expect((await get('/status', {})).statusCode).toBe(401);
    expect(lines).toEqual([expect.objectContaining({ level: 30, msg: 'request', method: 'GET', url: '/status', status: 401 })]);
    lines.length = 0;
    expect((await get('/no-such-route')).statusCode).toBe(404);
    expect(lines).toEqual([expect.objectContaining({ level: 30, msg: 'request', status: 404, apiKey: key.id })]);
  });

  it('writes every request that is not a read at info', async () => {
    const res = await service.app.inject({ method: 'POST', url: '/transaction/send_raw/litecoin', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, payload: '{}' });
    expect(res.statusCode).toBe(400);
    expect(requestLines()).toEqual([expect.objectContaining({ level: 30, method: 'POST', url: '/transaction/send_raw/litecoin', status: 400, apiKey: key.id })]);
  });
});

describe('secrets in the access log', () => {
  it('hides a key sent as ?api_key= (refused: the service reads X-API-KEY), and other credential parameters', async () => {
    const res = await get(`/status?api_key=${key.key}&limit=3&token=abc123`, {});
    expect(res.statusCode).toBe(401);
    expect(requestLines()).toEqual([expect.objectContaining({ level: 30, url: '/status?api_key=***&limit=3&token=***', status: 401 })]);
    expect(JSON.stringify(lines)).not.toContain(key.key);
    expect(JSON.stringify(lines)).not.toContain('abc123');
  });

  it('never writes the X-API-KEY or Authorization header, at any level', async () => {
    logger.level = 'trace';
    try {
      expect((await get('/status', { 'x-api-key': key.key, authorization: 'Bearer metrics-token-secret' })).statusCode).toBe(200);
      expect((await get(`/no-such-route?api_key=${key.key}`, { 'x-api-key': key.key })).statusCode).toBe(404);
    } finally {
      logger.level = 'info';
    }
    expect(requestLines().length).toBe(2);
    expect(JSON.stringify(lines)).not.toContain(key.key);
    expect(JSON.stringify(lines)).not.toContain('metrics-token-secret');
  });

  it("hides them in fastify's own lines that carry the request, and wherever a line holds headers", () => {
    const own: Array<Record<string, unknown>> = [];
    const log = requestLogger(pino({ level: 'info' }, { write: (line: string) => void own.push(JSON.parse(line) as Record<string, unknown>) }));
    const headers = { 'x-api-key': key.key, authorization: 'Bearer t0ken', accept: 'application/json' };
    log.warn({ req: { method: 'GET', url: `/status?api_key=${key.key}`, host: 'h', ip: '10.0.0.1', headers } }, 'write head failed');
    log.info({ headers }, 'headers');
    expect(own[0]?.req).toEqual({ method: 'GET', url: '/status?api_key=***', host: 'h', remoteAddress: '10.0.0.1' });
    expect(own[1]?.headers).toEqual({ 'x-api-key': '***', authorization: '***', accept: 'application/json' });
    expect(JSON.stringify(own)).not.toMatch(new RegExp(`${key.key}|t0ken`));
  });
});

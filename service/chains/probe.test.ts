// "Test connection" over Electrum (plain and TLS: a self-signed certificate is refused unless
// pinned, a pin that differs is refused at the certificate field) and over Blockbook (its chain
// checked against the coin's network), against the local stand-in servers; and the service that
// is configured with the pin accepts that certificate and no other.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { decodeTxHex, txidHex } from '../../shared/coins/tx.ts';
import { startTestService, type TestService } from '../test/http-service.ts';
import { loadFixture, startBlockbookTestServer, type BlockbookTestServer } from './blockbook/test-server.ts';
import { loadElectrumFixture, selfSignedCertificate, startElectrumTestServer, type ElectrumTestServer } from './electrum/test-server.ts';
import { probeChain } from './probe.ts';

const coin = 'litecoin';
const params = chainParams(coin, 'mainnet');
const txidOf = (hex: string) => txidHex(decodeTxHex(hex, undefined, params));
const certificate = selfSignedCertificate();
const fingerprint = new X509Certificate(certificate.cert).fingerprint256;
const otherFingerprint = new X509Certificate(selfSignedCertificate().cert).fingerprint256;

let plain: ElectrumTestServer;
let secure: ElectrumTestServer;
let blockbook: BlockbookTestServer;
const services: TestService[] = [];

beforeAll(async () => {
  const fixture = loadElectrumFixture(new URL('./electrum/fixtures/litecoin.json', import.meta.url));
  plain = await startElectrumTestServer(fixture, txidOf);
  secure = await startElectrumTestServer(fixture, txidOf, { tls: certificate });
  blockbook = await startBlockbookTestServer(loadFixture(new URL('./blockbook/fixtures/litecoin.json', import.meta.url)), txidOf);
});

afterAll(async () => {
  for (const s of services) await s.dispose();
  await Promise.all([plain?.close(), secure?.close(), blockbook?.close()]);
});

const electrum = (server: ElectrumTestServer, extra: Record<string, unknown> = {}) => ({ network: 'mainnet' as const, backend: { type: 'electrum' as const, host: server.host, port: server.port, tls: false, ...extra } });

describe('probeChain over Electrum', () => {
  it('reads the server and its tip over plain TCP, and says what an Electrum server cannot tell', async () => {
    const r = await probeChain(coin, electrum(plain));
    expect(r).toMatchObject({ ok: true, answer: { kind: 'electrum', height: plain.fixture.tip.height, pruned: null, blockFilters: null, certificateSha256: null } });
    if (r.ok) expect(r.answer.notes.join(' ')).toMatch(/does not say whether it is pruned or keeps block filters/);
  });

  it('refuses a self-signed certificate unless pinned, and shows its SHA-256 to pin', async () => {
    const refused = await probeChain(coin, electrum(secure, { tls: true }));
    expect(refused).toMatchObject({ ok: false, field: 'certificate', message: expect.stringMatching(/not signed by an authority this computer knows/) });
    expect(refused.ok ? '' : refused.message).toContain(fingerprint);
    const pinned = await probeChain(coin, electrum(secure, { tls: true, certificateSha256: fingerprint }));
    expect(pinned).toMatchObject({ ok: true, answer: { certificateSha256: fingerprint } });
  });

  it('refuses another certificate than the pinned one at the certificate field', async () => {
    const r = await probeChain(coin, electrum(secure, { tls: true, certificateSha256: otherFingerprint }));
    expect(r).toMatchObject({ ok: false, field: 'certificate', message: expect.stringMatching(/shows another certificate .* than the one pinned/) });
  });

  it('refuses TLS on a plain port, and a port where nothing listens, at their fields', async () => {
    expect(await probeChain(coin, electrum(plain, { tls: true }))).toMatchObject({ ok: false, field: 'port', message: expect.stringMatching(/does not speak TLS/) });
    expect(await probeChain(coin, { network: 'mainnet', backend: { type: 'electrum', host: '127.0.0.1', port: 1, tls: false } })).toMatchObject({ ok: false, field: 'host', message: expect.stringMatching(/nothing answers at 127\.0\.0\.1:1/) });
  });

  it('the service pinned to the certificate reads through it; pinned to another, it refuses', async () => {
    const good = await startTestService({ coins: { [coin]: electrum(secure, { tls: true, certificateSha256: fingerprint, retries: 0, timeoutMs: 2_000 }) } });
    services.push(good);
    const alice = (plain.fixture as unknown as { scenario: { alice: string } }).scenario.alice;
    const read = await good.request('GET', `/address/balance/${coin}/${alice}`);
    expect(read.status).toBe(200);
    const bad = await startTestService({ coins: { [coin]: electrum(secure, { tls: true, certificateSha256: otherFingerprint, retries: 0, timeoutMs: 2_000 }) } });
    services.push(bad);
    const res = await bad.request('GET', `/address/balance/${coin}/${alice}`);
    expect(res.status).toBe(502);
    expect(JSON.stringify(res.json)).toMatch(/other than the pinned one/);
  });
});

describe('probeChain over Blockbook', () => {
  it('reads its chain and height', async () => {
    const r = await probeChain(coin, { network: 'mainnet', backend: { type: 'blockbook', url: blockbook.url } });
    expect(r).toMatchObject({ ok: true, answer: { kind: 'blockbook', chain: 'main', network: 'mainnet', height: 2_800_000, software: 'Blockbook 0.5.1' } });
  });

  it('refuses a Blockbook of another network, and an address that is no Blockbook', async () => {
    expect(await probeChain(coin, { network: 'regtest', backend: { type: 'blockbook', url: blockbook.url } })).toMatchObject({ ok: false, field: 'network', message: `the Blockbook at ${blockbook.url} is on mainnet, but this coin is configured for regtest: connect a litecoin regtest Blockbook, or choose mainnet` });
    const none = await probeChain(coin, { network: 'mainnet', backend: { type: 'blockbook', url: 'http://127.0.0.1:1' } });
    expect(none).toMatchObject({ ok: false, field: 'url', message: expect.stringMatching(/is http:\/\/127\.0\.0\.1:1 a Blockbook's base URL\?/) });
  });
});

describe('the service over a Blockbook of another network', () => {
  it('serves nothing of the coin, and /status and /readyz say why', async () => {
    const t = await startTestService({ coins: { [coin]: { network: 'regtest', backend: { type: 'blockbook', url: blockbook.url, retries: 0, timeoutMs: 2_000 } } } });
    services.push(t);
    const why = `litecoin: the Blockbook at ${new URL(blockbook.url).host} is on mainnet, but this coin is configured for regtest`;
    const status = (await t.request('GET', '/status')).json as { coins: { error: string | null }[] };
    expect(status.coins[0]!.error).toContain(why);
    const res = await t.request('GET', `/fee_estimates/${coin}`);
    expect(res.status).toBe(503);
    expect((res.json as { message: string }).message).toContain(why);
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect((ready.json as { message: string }).message).toContain(`not ready: ${why}`);
  });
});

// The signature counts of a vault payment follow the path it is signed on (issue 32), on litecoind
// -regtest: issue 27's proof vault (2 of alice, bob, carol now, or 1 of dave, erin after 144 blocks).
// A recovery spend reads "0 of 1 signature" (not "0 of 2") in the payment's summary and
// explanation, its page asks dave and erin only, co-signer mode reads the request file as 1 of 2 on
// the recovery path (not the wallet's "2 of 5"), and once dave signs it is "1 of 1 signature", fully
// signed on the recovery path; a main-path payment of the same vault stays 2 of alice, bob, carol.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openedRequestView, paymentDetail, paymentSummary } from './views.ts';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { fundWalletCoin, startVaultDesk, type WalletDesk } from '../../dev/desk-testing/regtest.ts';
import { proposePayment } from '../core/payments/propose.ts';
import { importSignatureFiles } from '../core/payments/signature-import.ts';
import { openSigningRequest, writeSigningRequest } from '../core/payments/signing-request.ts';
import { signRequest } from '../core/software-signer.ts';
import { submitPayment } from '../core/payments/submit.ts';

const COIN = 100_000_000n;
let fixture: WalletDesk;
let coin = { txid: '', vout: 0, height: 0 };
let mainCoin = { txid: '', vout: 0, height: 0 };

beforeAll(async () => {
  fixture = await startVaultDesk('Signing path vault');
  mainCoin = await fundWalletCoin(fixture.desk, fixture.deps, fixture.walletId, COIN);
  coin = await fundWalletCoin(fixture.desk, fixture.deps, fixture.walletId, COIN);
  // The recovery path opens at the coin's block + 144: a spend can enter the block after the tip.
  await fixture.desk.mine(144);
}, 300_000);
afterAll(async () => {
  await fixture?.dispose();
});

describe('a vault payment on its recovery path, as the screens read it', () => {
  it('counts 1 signature of dave or erin everywhere: summary, page, request file, then fully signed', async () => {
    const { deps, walletId, desk } = fixture;
    const to = await desk.node.newAddress('bech32');
    const p = await proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 0n, feeRate: 2n, inputs: [`${coin.txid}:${coin.vout}`], vaultPath: 144 });

    const summary = paymentSummary(deps, p);
    expect(summary).toMatchObject({ signed: 0, required: 1, signatures: '0 of 1 signature' });
    expect(summary.path).toEqual({
      threshold: 1,
      keys: ['dave', 'erin'],
      blocks: 144,
      recovery: 1,
      name: 'recovery path',
      words: "recovery path: 1 of 2 (dave, erin), open 144 blocks (about 0.3 days) after a coin's block",
    });
    expect(summary.explanation).toMatch(/^Waiting for signatures: 0 of 1 signature so far\..*1 more of dave, erin \(the recovery path\)/);
    expect(summary.explanation).not.toMatch(/of 2/);
    const detail = paymentDetail(deps, p.id);
    expect(detail.cosigners.map((c) => c.name)).toEqual(['dave', 'erin']);
    expect(detail.inputs.map((i) => i.required)).toEqual([1]);
    // Sized by the recovery path's witness (one signature), as the service built it at 2 litoshi/vB.
    expect(detail.fee_rate).toBe('2.0');

    // Co-signer mode reads the request file alone: the recovery path's 1 of 2, not the wallet's 2 of its 5 keys.
    const request = await writeSigningRequest(deps, p.id);
    const opened = openedRequestView(openSigningRequest(request));
    expect(opened.signing).toEqual(summary.path);

    importSignatureFiles(deps, [{ name: 'dave.json', text: signRequest(request, { xprv: testCosigner('dave').accountXprv }).file }]).forEach((r) => expect(r.status).toBe('imported'));
    const signed = paymentSummary(deps, deps.store.payment(p.id)!);
    expect(signed).toMatchObject({ state: 'ready', signed: 1, required: 1, signatures: '1 of 1 signature' });
    expect(signed.explanation).toBe('Fully signed: every input has its 1 signature on the recovery path. Submit it to broadcast the payment.');
    expect((await submitPayment(deps, p.id)).state).toBe('broadcast');
  }, 120_000);

  it('keeps a main-path payment of the same vault at 2 of alice, bob, carol', async () => {
    const { deps, walletId, desk } = fixture;
    const p = await proposePayment(deps, walletId, { to: await desk.node.newAddress('bech32'), amount: COIN / 4n, minersFee: 0n, feeRate: 2n, inputs: [`${mainCoin.txid}:${mainCoin.vout}`] });
    const summary = paymentSummary(deps, p);
    expect(summary).toMatchObject({ signed: 0, required: 2, signatures: '0 of 2 signatures' });
    expect(summary.path).toMatchObject({ threshold: 2, keys: ['alice', 'bob', 'carol'], blocks: 0, recovery: 0, words: 'main path: 2 of 3 (alice, bob, carol)' });
    expect(openedRequestView(openSigningRequest(await writeSigningRequest(deps, p.id))).signing).toEqual(summary.path);
  }, 120_000);
});

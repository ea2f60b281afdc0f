// A batch on litecoind -regtest: 50 recipients read from a CSV file, proposed, re-verified by the
// desk (every output, amount and the change), signed by two co-signers and paid in one transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, bytesToHex, chainParams, decodeTxHex, encodeTxHex } from '../../../shared/coins/index.ts';
import { unitsToDecimal } from '../../../shared/coins/units.ts';
import { checkRecipients, readRecipientsCsv } from './batch.ts';
import { batchProposal, proposePayment } from './propose.ts';
import { importSignatureFiles } from './signature-import.ts';
import { openSigningRequest, writeSigningRequest } from './signing-request.ts';
import { signRequest } from '../software-signer.ts';
import type { CoordinatorStore } from '../store/store.ts';
import { refreshConfirmations, submitPayment } from './submit.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { apiWith, startWalletDesk, type RegtestDesk, type WalletDesk, fundWallet } from '../../../dev/desk-testing/regtest.ts';
import type { CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let walletId: string;

let fixture: WalletDesk | undefined;

beforeAll(async () => {
  fixture = await startWalletDesk('Payroll');
  ({ desk, store, deps, walletId } = fixture);
  await fundWallet(desk, deps, walletId, 10n * COIN);
}, 300_000);
afterAll(async () => fixture?.dispose());

describe('a batch payment', () => {
  it('pays 50 recipients from a CSV file in one transaction', async () => {
    const payees = await Promise.all(Array.from({ length: 50 }, (_, i) => desk.node.newAddress(i % 2 === 0 ? 'legacy' : 'bech32')));
    const amountOf = (i: number) => COIN / 100n + BigInt(i) * 1000n;
    const csv = ['address,amount,label', ...payees.map((a, i) => `${a},${unitsToDecimal(amountOf(i), 8)},employee ${i + 1}`)].join('\n');
    const read = readRecipientsCsv(csv);
    const { recipients, refusals } = checkRecipients(params, read.rows);
    expect([...read.refusals, ...refusals]).toEqual([]);
    expect(recipients).toHaveLength(50);

    // A service that drops a recipient's amount by one unit is refused: every output is re-checked.
    const cheating = { ...deps, api: apiWith(desk.api, {
      createMultisig: async (coin, body) => {
        const created = await desk.api.createMultisig(coin, body);
        const tx = decodeTxHex(created.tx);
        tx.outputs[37]!.value -= 1n;
        return { ...created, tx: encodeTxHex(tx) };
      },
    }) };
    await expect(proposePayment(cheating, walletId, batchProposal(recipients, 100_000n))).rejects.toThrow(/output 37 \(payment\) pays/);
    expect(store.payments(walletId)).toHaveLength(0);

    const p = await proposePayment(deps, walletId, batchProposal(recipients, 100_000n));
    const total = Array.from({ length: 50 }, (_, i) => amountOf(i)).reduce((s, a) => s + a, 0n);
    expect(p).toMatchObject({ to: payees[0], amount: total, minersFee: 100_000n });
    expect(store.paymentRecipients(p.id)).toEqual(recipients.map((r, i) => ({ address: r.to, amount: r.amount, label: `employee ${i + 1}` })));

    const request = await writeSigningRequest(deps, p.id);
    const opened = openSigningRequest(request);
    expect(opened.outputs.filter((o) => o.purpose === 'payment').map((o) => [o.address, o.amount])).toEqual(recipients.map((r) => [r.to, r.amount]));
    expect(opened.outputs.filter((o) => o.purpose === 'change').map((o) => o.amount)).toEqual([10n * COIN - total - 100_000n]);

    const files = [signRequest(request, { xprv: alice.masterXprv }), signRequest(request, { xprv: bob.accountXprv })].map((s, i) => ({ name: `${i}.json`, text: s.file }));
    expect(importSignatureFiles(deps, files).map((r) => r.status)).toEqual(['imported', 'imported']);
    const sent = await submitPayment(deps, p.id);
    await desk.synced();
    await desk.mine(1);
    expect((await refreshConfirmations(deps, p.id)).state).toBe('confirmed');

    const onChain = await desk.node.rpc.call<{ vin: unknown[]; vout: { value: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [sent.txid, true]);
    expect(onChain.vin).toHaveLength(1);
    expect(onChain.vout).toHaveLength(51);
    expect(onChain.vout.slice(0, 50).map((v) => [v.scriptPubKey.hex, BigInt(Math.round(v.value * 1e8))])).toEqual(
      recipients.map((r) => [bytesToHex(addressToScript(params, r.to)), r.amount]),
    );
  }, 300_000);
});

// The payment draft check: each refusal a treasurer can type, with the words the screen shows
// (amounts in the coin's unit). Pure: no service, no node.
import { describe, expect, it } from 'vitest';
import { chainParams, scriptToAddress } from '../../../shared/coins/index.ts';
import { draftRefusalWords } from '../../bridge/refusals.ts';
import { unitOf } from '../../bridge/units.ts';
import { addressRefusal, refuseDraft, type DraftRefusal } from './draft.ts';

const regtest = chainParams('litecoin', 'regtest');
const unit = unitOf('litecoin', 'regtest', regtest.decimals);
const COIN = 100_000_000n;
const p2pkh = Uint8Array.from([0x76, 0xa9, 0x14, ...new Uint8Array(20).fill(7), 0x88, 0xac]);
const mainnetAddress = scriptToAddress(chainParams('litecoin', 'mainnet'), p2pkh)!;
const regtestAddress = scriptToAddress(regtest, p2pkh)!;
const words = (r: DraftRefusal[]) => r.map((x) => [x.field, draftRefusalWords(x, unit)]);

describe('addresses are checked for the wallet coin and network', () => {
  it('accepts an address of the wallet chain', () => {
    expect(addressRefusal(regtest, regtestAddress)).toBeNull();
    expect(refuseDraft(regtest, { to: ` ${regtestAddress} ` }, null)).toEqual([]);
  });

  it('says a mistyped address has a bad checksum', () => {
    expect(addressRefusal(regtest, 'QNotAnAddress123')).toBe('address "QNotAnAddress123" is not a valid litecoin regtest address: bad checksum (a character is mistyped or missing)');
  });

  it('names the network of an address of the same coin on another network', () => {
    expect(mainnetAddress).toMatch(/^L/);
    expect(words(refuseDraft(regtest, { to: mainnetAddress }, null))).toEqual([['to', `"${mainnetAddress}" is a litecoin mainnet address; this wallet is on regtest`]]);
  });

  it('checks the operator fee address the same way', () => {
    expect(refuseDraft(regtest, { to: regtestAddress, operatorFee: { address: 'QNotAnAddress123' } }, null).map((r) => r.field)).toEqual(['operator.address']);
  });
});

describe('amounts are checked against the dust limit and what the wallet holds', () => {
  it('refuses dust, naming the limit in the coin unit', () => {
    expect(words(refuseDraft(regtest, { amount: regtest.dustLimit - 1n }, 13n * COIN))).toEqual([['amount', 'The amount is below the dust limit of 0.0000546 LTC (regtest): the network does not relay so small an output.']]);
    expect(words(refuseDraft(regtest, { amount: COIN, operatorFee: { amount: 1n } }, null))).toEqual([['operator.fee_amount', 'The operator fee is below the dust limit of 0.0000546 LTC (regtest): the network does not relay so small an output.']]);
  });

  it('refuses more than the wallet holds, saying how much it holds and how much is needed', () => {
    expect(words(refuseDraft(regtest, { amount: 50n * COIN, minersFee: 20_000n }, 13n * COIN))).toEqual([
      ['amount', "The wallet has 13 LTC (regtest) free to spend; this payment needs 50.0002 LTC (regtest) for the amount and the miners' fee."],
    ]);
    expect(words(refuseDraft(regtest, { amount: 12n * COIN, minersFee: 20_000n, operatorFee: { amount: COIN } }, 13n * COIN))).toEqual([
      ['amount', "The wallet has 13 LTC (regtest) free to spend; this payment needs 13.0002 LTC (regtest) for the amount, the operator fee and the miners' fee."],
    ]);
  });

  it('accepts what the wallet can pay, and leaves the balance alone when it is not known', () => {
    expect(refuseDraft(regtest, { amount: 13n * COIN - 20_000n, minersFee: 20_000n }, 13n * COIN)).toEqual([]);
    expect(refuseDraft(regtest, { amount: 50n * COIN, minersFee: 20_000n }, null)).toEqual([]);
  });
});

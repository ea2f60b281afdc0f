// Whether the desk offers a fee bump: where the service's node relays replacements and, on mainnet,
// the coin's network does too (docs/api-decisions.md: each coin's replacement default).
import { describe, expect, it } from 'vitest';
import { replacementsRelayedBy } from './service-status.ts';
import { signalsReplacement } from '../payments/fees.ts';

describe('replacementsRelayedBy', () => {
  it("follows the service's word on regtest and testnets, else the coin's default", () => {
    expect(replacementsRelayedBy('litecoin', 'regtest', true)).toBe(true);
    expect(replacementsRelayedBy('litecoin', 'regtest', false)).toBe(false);
    expect(replacementsRelayedBy('litecoin', 'testnet', undefined)).toBe(false);
    expect(replacementsRelayedBy('bitcoin', 'testnet', undefined)).toBe(true);
  });

  it('never on litecoin mainnet, whose nodes mostly run without -mempoolreplacement=1, even when the service relays them', () => {
    expect(replacementsRelayedBy('litecoin', 'mainnet', true)).toBe(false);
    expect(replacementsRelayedBy('litecoin', 'mainnet', undefined)).toBe(false);
  });

  it("on bitcoin mainnet as the service's node does; never on coins without BIP125", () => {
    expect(replacementsRelayedBy('bitcoin', 'mainnet', true)).toBe(true);
    expect(replacementsRelayedBy('bitcoin', 'mainnet', false)).toBe(false);
    expect(replacementsRelayedBy('bitcoin', 'mainnet', undefined)).toBe(true);
    expect(replacementsRelayedBy('dash', 'regtest', true)).toBe(false);
    expect(replacementsRelayedBy('bitcoin_cash', 'mainnet', true)).toBe(false);
    expect(replacementsRelayedBy('ethereum', 'mainnet', true)).toBe(false);
  });
});

// Whether a spend signals replacement is not the service's word: the treasurer's choice and the coin's row.
describe('signalsReplacement', () => {
  it('signals where asked and the coin has BIP125, whatever its nodes relay', () => {
    expect(signalsReplacement('litecoin', true)).toBe(true);
    expect(signalsReplacement('bitcoin', true)).toBe(true);
    expect(signalsReplacement('litecoin', false)).toBe(false);
    expect(signalsReplacement('dash', true)).toBe(false);
    expect(signalsReplacement('bitcoin_cash', true)).toBe(false);
    expect(signalsReplacement('ethereum', true)).toBe(false);
  });
});

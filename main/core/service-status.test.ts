// Whether the desk offers a fee bump: where the service's node relays replacements and, on mainnet,
// the coin's network does too (docs/api-decisions.md: each coin's replacement default).
import { describe, expect, it } from 'vitest';
import { replacementsRelayedBy } from './service-status.ts';

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

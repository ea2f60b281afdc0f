// The one function that says who signs a payment (signing-path.ts), and the explanation that
// counts with it (issue 32): M of N, and a vault's recovery path with its own threshold and keys.
import { describe, expect, it } from 'vitest';
import { chainParams } from '../../shared/coins/index.ts';
import { explainPayment } from './explain.ts';
import { signatureCount, signingPath } from './signing-path.ts';

const params = chainParams('litecoin', 'regtest');

describe('one function says who signs a payment', () => {
  it('reads M of N, and each path of a vault with its keys and when it opens', () => {
    const names = ['alice', 'bob', 'carol'];
    expect(signingPath(params, { m: 2, names, vault: null }, undefined)).toEqual({ threshold: 2, keys: names, blocks: 0, recovery: 0, name: 'co-signers', words: '2 of 3 co-signers (alice, bob, carol)' });
    expect(signatureCount(0, { threshold: 1 })).toBe('0 of 1 signature');
    expect(signatureCount(1, { threshold: 2 })).toBe('1 of 2 signatures');
    const recovery = { threshold: 1, keys: ['dave', 'erin'], recovery: 1, name: 'recovery path' };
    expect(explainPayment({ state: 'awaiting_signatures', path: recovery, signed: 0, reason: null, lastError: null, confirmations: 0 })).toBe(
      'Waiting for signatures: 0 of 1 signature so far. Export the signing request, have 1 more of dave, erin (the recovery path) sign it, then import their signature files.',
    );
    expect(explainPayment({ state: 'ready', path: recovery, signed: 1, reason: null, lastError: null, confirmations: 0 })).toBe('Fully signed: every input has its 1 signature on the recovery path. Submit it to broadcast the payment.');
  });
});


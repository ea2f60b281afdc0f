// The relay's binding signed on a Ledger (issue 35): app-bitcoin-new's SIGN_MESSAGE replayed at the
// transport level (doc/bitcoin.md; the message read chunk by chunk through its Merkle tree), the
// signature made by the test's own key at the co-signer's path and checked as the treasurer's desk
// checks a binding; a legacy-protocol app is refused in words.
import { base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { chainParams, parseXpub } from '../../../shared/coins/index.ts';
import { signMessage, verifyMessage } from '../../../shared/files/signed-message.ts';
import { bindingMessage } from '../../../shared/relay/invitation.ts';
import { deviceKeys, newDeviceSecret } from '../../../shared/relay/device.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { appAndVersion, replay, Session, signMessage as signMessageApdu } from '../../../dev/ledger-testing/apdu.ts';
import { cosignerPrivateKey } from '../software-signer.ts';
import { signMessageOnLedger } from './message.ts';
import { parsePath } from './paths.ts';

describe("the relay binding signed by a co-signer's Ledger", () => {
  const params = chainParams('bitcoin', 'testnet');
  const alice = testCosigner('alice', params);
  const message = bindingMessage('ab'.repeat(16), deviceKeys(newDeviceSecret()).public);

  it('Bitcoin app >= 2.1: SIGN_MESSAGE at the co-signer path, read in 64-byte chunks; the signature verifies against the xpub', async () => {
    expect(message.length).toBeGreaterThan(64);
    const made = signMessage(message, cosignerPrivateKey(params, { xprv: alice.accountXprv }, alice.xpub, alice.derivationPath));
    const s = appAndVersion(new Session(), 'Bitcoin Test', '2.2.3');
    signMessageApdu(s, parsePath(alice.derivationPath), new TextEncoder().encode(message), base64.decode(made));
    const r = replay(s);
    const signature = await signMessageOnLedger(r.connector, 'bitcoin', 'testnet', alice.derivationPath, message);
    r.done();
    expect(signature).toBe(made);
    expect(verifyMessage(message, signature, parseXpub(params, alice.xpub).publicKey)).toEqual({ ok: true });
  });

  it('a legacy-protocol app (Litecoin) is refused in words, before it is asked to sign', async () => {
    const r = replay(appAndVersion(new Session(), 'Litecoin', '2.4.1'));
    await expect(signMessageOnLedger(r.connector, 'litecoin', 'mainnet', "m/48'/2'/0'/2'", message)).rejects.toThrow(
      "the Litecoin app 2.4.1 signs messages in its own coin's format, which the desk does not check: only the Bitcoin app 2.1 and later binds a relay device by key. Join without the Ledger and compare the code with the treasurer",
    );
    r.done();
  });

  it('an unknown path is refused before the device is asked anything', async () => {
    const r = replay(new Session());
    await expect(signMessageOnLedger(r.connector, 'bitcoin', 'testnet', 'm', message)).rejects.toThrow("the invitation does not say where the co-signer's key is on the device");
  });
});

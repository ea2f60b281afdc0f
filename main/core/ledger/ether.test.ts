// An Ether account on a Ledger (Ethereum app), replayed at the transport level from app-ethereum's
// ethapp.adoc formats: GET ETH PUBLIC ADDRESS, then SIGN ETH TRANSACTION over the RLP the desk
// re-encoded from what it decoded. The "device" key is EIP-155's own example key, so the answer is
// the EIP's worked signature and the recovery check is real.
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../../shared/coins/index.ts';
import { ledgerEtherSigner, readLedgerEtherAddress } from './ether.ts';
import { HARDENED } from './paths.ts';
import { apdu, appAndVersion, ethAddress, ethSign, hex, replay, Session, u32be, u8 } from '../../../dev/ledger-testing/apdu.ts';

const H = (n: number) => n + HARDENED;
const PATH = [H(44), H(60), H(0), 0, 0];
const KEY = hexToBytes('46'.repeat(32));
const PUB = ecc.pointFromScalar(KEY, false)!;
const ADDRESS = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F';
const UNSIGNED = 'ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080';
const R = hexToBytes(18515461264373351373200002665853028612451056578545711640558177340181847433846n.toString(16).padStart(64, '0'));
const S = hexToBytes(46948507304638947509940763649030358759909902576025900602547168820602576006531n.toString(16).padStart(64, '0'));

function session(answer: { v: number; r: Uint8Array; s: Uint8Array } | string, address = ADDRESS): Session {
  const s = appAndVersion(new Session(), 'Ethereum', '1.10.3');
  ethAddress(s, PATH, PUB, address);
  if (typeof answer === 'string') return s.x(apdu(0xe0, 0x04, 0, 0, hex(u8(PATH.length), ...PATH.map(u32be), UNSIGNED)), answer);
  return ethSign(s, PATH, hexToBytes(UNSIGNED), answer.v, answer.r, answer.s);
}

describe('Ledger Ether signer', () => {
  it("signs the service's unsigned transaction: EIP-155's worked example, r, s and v = 37", async () => {
    const r = replay(session({ v: 37, r: R, s: S }));
    const signer = ledgerEtherSigner(r.connector, ADDRESS);
    expect(await signer.address()).toBe(ADDRESS);
    expect(await signer.sign(`0x${UNSIGNED}`)).toEqual({ r: `0x${Buffer.from(R).toString('hex')}`, s: `0x${Buffer.from(S).toString('hex')}`, v: '37' });
    r.done();
  });

  it('refuses a signature that does not recover to the account', async () => {
    const other = ecc.signRecoverable(new Uint8Array(32).fill(7), KEY);
    const r = replay(session({ v: 37, r: other.signature.subarray(0, 32), s: other.signature.subarray(32) }));
    await expect(ledgerEtherSigner(r.connector, ADDRESS).sign(UNSIGNED)).rejects.toMatchObject({ code: 'bad_signature', message: expect.stringMatching(/does not come from 0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F.*nothing was sent/) });
  });

  it("refuses a device whose key is not the account's", async () => {
    const s = appAndVersion(new Session(), 'Ethereum', '1.10.3');
    ethAddress(s, PATH, PUB, '0x0000000000000000000000000000000000000001');
    await expect(ledgerEtherSigner(replay(s).connector, ADDRESS).sign(UNSIGNED)).rejects.toMatchObject({ code: 'ledger_wrong_key' });
  });

  it('refused on the device, and a malformed transaction never reaches it', async () => {
    await expect(ledgerEtherSigner(replay(session('6985')).connector, ADDRESS).sign(UNSIGNED)).rejects.toMatchObject({ code: 'ledger_refused' });
    const untouched = replay(new Session());
    await expect(ledgerEtherSigner(untouched.connector, ADDRESS).sign('0xc0')).rejects.toMatchObject({ code: 'bad_transaction' });
    expect(untouched.opened()).toBe(0);
  });

  it('reads the address, and says when the Bitcoin app is open instead', async () => {
    const s = appAndVersion(new Session(), 'Ethereum', '1.10.3');
    ethAddress(s, PATH, PUB, ADDRESS);
    expect(await readLedgerEtherAddress(replay(s).connector)).toBe(ADDRESS);
    await expect(readLedgerEtherAddress(replay(appAndVersion(new Session(), 'Bitcoin', '2.2.3')).connector)).rejects.toMatchObject({
      code: 'ledger_wrong_app',
      message: expect.stringMatching(/the Bitcoin app is open; open the Ethereum app/),
    });
  });
});

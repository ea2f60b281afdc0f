/**
 * An M-of-N wallet as a ur:crypto-output (BCR-2020-010, the deprecated name every signer still reads):
 * sh/wsh/sh(wsh) around multi or sortedmulti, each key an hdkey with its origin (master fingerprint
 * and path) and children 0/* as BCR-2020-010's own multisig example writes them (the format has no
 * <0;1> pair; devices take the change branch from the same keys). Built with
 * @keystonehq/bc-ur-registry from the wallet's descriptor text, which says everything written here.
 */
import { CryptoCoinInfo, CryptoCoinInfoNetwork, CryptoCoinInfoType, CryptoHDKey, CryptoKeypath, CryptoOutput, MultiKey, PathComponent, ScriptExpressions } from '@keystonehq/bc-ur-registry';
import { parseMultisigDescriptor } from '../files/descriptor.ts';
import { HARDENED, parseDerivationPath } from '../files/derivation-path.ts';
import { parseXpubLike } from '../files/xpub-bytes.ts';

const SCRIPT: Readonly<Record<'p2sh' | 'p2wsh' | 'p2sh-p2wsh', typeof ScriptExpressions.SCRIPT_HASH[]>> = {
  p2sh: [ScriptExpressions.SCRIPT_HASH],
  p2wsh: [ScriptExpressions.WITNESS_SCRIPT_HASH],
  'p2sh-p2wsh': [ScriptExpressions.SCRIPT_HASH, ScriptExpressions.WITNESS_SCRIPT_HASH],
};

/** The CBOR body of the wallet's crypto-output; the descriptor is refused in words when it is no multisig one. */
export function multisigCryptoOutput(descriptor: string): Uint8Array {
  const d = parseMultisigDescriptor(descriptor);
  const hdkeys = d.keys.map((k) => {
    const { bytes } = parseXpubLike(k.xpub);
    const steps = parseDerivationPath(k.derivationPath);
    const origin = new CryptoKeypath(
      steps.map((s) => new PathComponent({ index: s % HARDENED, hardened: s >= HARDENED })),
      Buffer.from(k.fingerprint, 'hex'),
      steps.length,
    );
    return new CryptoHDKey({
      isMaster: false,
      key: Buffer.from(bytes.slice(45, 78)),
      chainCode: Buffer.from(bytes.slice(13, 45)),
      useInfo: new CryptoCoinInfo(CryptoCoinInfoType.bitcoin, d.keyNetwork === 'test' ? CryptoCoinInfoNetwork.testnet : CryptoCoinInfoNetwork.mainnet),
      origin,
      children: new CryptoKeypath([new PathComponent({ index: 0, hardened: false }), new PathComponent({ hardened: false })]),
      parentFingerprint: Buffer.from(bytes.slice(5, 9)),
    });
  });
  const expressions = [...SCRIPT[d.scriptType], d.sortKeys ? ScriptExpressions.SORTED_MULTISIG : ScriptExpressions.MULTISIG];
  return new Uint8Array(new CryptoOutput(expressions, new MultiKey(d.m, hdkeys)).toCBOR());
}

// Endpoint 5: extended public keys (each with a derivation path) to the addresses they give on
// every coin that can hold them: each key's own P2PKH and Ethereum addresses, or one M-of-N
// address per coin whose xpub versions every key is valid for: P2SH by default, a segwit type
// (extension) only on the coins with segwit.
import { p2pkhAddressOfPublicKey, scriptToAddress } from '../../shared/coins/address.ts';
import { type ChainParams, type CoinName, chainParams, implementedUtxoCoins } from '../../shared/coins/coin-table.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { ethereumAddressOfPublicKey } from '../../shared/coins/ethereum-address.ts';
import { multisigScripts, type MultisigScriptOptions } from '../../shared/coins/multisig-script.ts';
import { deriveXpubPath, parseXpub } from '../../shared/coins/xpub.ts';
import type { UtxoBackend } from '../chains/backend.ts';
import { badRequest } from '../errors.ts';

/** Each implemented coin on the network this deployment serves it on (mainnet when not served). */
function displayChains(served: ReadonlyMap<CoinName, Pick<UtxoBackend, 'params'>>): ChainParams[] {
  return implementedUtxoCoins().map((coin) => served.get(coin)?.params ?? chainParams(coin, 'mainnet'));
}

interface DerivedKey {
  publicKey: Uint8Array;
  /** Chains whose xpub versions accept the key's version. */
  chains: ChainParams[];
}

function derive(chains: readonly ChainParams[], xpub: string, path: string, i: number): DerivedKey {
  const field = `master_keys[${i}].xpub`;
  const accepting: ChainParams[] = [];
  let firstError: unknown = null;
  let publicKey: Uint8Array | null = null;
  for (const params of chains) {
    try {
      const key = deriveXpubPath(parseXpub(params, xpub.trim(), field), path, `master_keys[${i}].path`);
      publicKey = key.publicKey;
      accepting.push(params);
    } catch (err) {
      if (!(err instanceof CoinError)) throw err;
      if (/path/.test(err.field ?? '')) throw err;
      firstError ??= err;
    }
  }
  if (!publicKey) {
    if (firstError instanceof CoinError && /private key/i.test(firstError.message)) throw firstError;
    const reason = firstError instanceof Error ? firstError.message : 'not an extended public key';
    throw badRequest(`${field} is not an extended public key of any coin served here (${reason})`);
  }
  return { publicKey, chains: accepting };
}

export interface NetworkAddresses {
  addresses: { address: string; coin: CoinName }[];
  /** The key behind the addresses, or the M-of-N keys in the order given. */
  publicKeys: Uint8Array[];
}

/**
 * `required` 0: one entry per key with its single-signature addresses. Otherwise one entry: the
 * M-of-N address of `script` (default P2SH, keys as given) on each coin all keys belong to and,
 * for a segwit type, that has segwit; `publicKeys` stay in the order given either way.
 */
export function networkAddresses(
  served: ReadonlyMap<CoinName, Pick<UtxoBackend, 'params'>>,
  masterKeys: readonly { xpub: string; path: string }[],
  required: number,
  script: MultisigScriptOptions = {},
): NetworkAddresses[] {
  const scriptType = script.scriptType ?? 'p2sh';
  if (required === 0 && (scriptType !== 'p2sh' || script.sortKeys === true)) {
    throw badRequest('script_type and sort_keys apply to M-of-N addresses: give number_of_required_signatures of at least 1');
  }
  const chains = displayChains(served);
  const keys = masterKeys.map((k, i) => derive(chains, k.xpub, k.path, i));
  if (required === 0) {
    return keys.map((k) => ({
      addresses: [
        ...k.chains.map((p) => ({ address: p2pkhAddressOfPublicKey(p, k.publicKey), coin: p.coin })),
        { address: ethereumAddressOfPublicKey(k.publicKey), coin: 'ethereum' as const },
      ],
      publicKeys: [k.publicKey],
    }));
  }
  if (required > keys.length) throw badRequest(`number_of_required_signatures is ${required} but only ${keys.length} master keys were given`);
  const publicKeys = keys.map((k) => k.publicKey);
  const common = chains.filter((p) => keys.every((k) => k.chains.includes(p)) && (scriptType === 'p2sh' || p.segwit));
  const addresses = common.flatMap((p) => {
    const address = scriptToAddress(p, multisigScripts(p, required, publicKeys, { scriptType, sortKeys: script.sortKeys === true }).scriptPubKey);
    return address === null ? [] : [{ address, coin: p.coin }];
  });
  return [{ addresses, publicKeys }];
}

// Endpoint 5: extended public keys to addresses on every coin that can hold them.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ExtendedKeys, NetworkAddressesList } from '../../../shared/api/schemas.ts';
import { p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from '../../../shared/coins/address.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { type ChainParams, chainParams, implementedUtxoCoins } from '../../../shared/coins/coin-table.ts';
import { CoinError } from '../../../shared/coins/errors.ts';
import { ethereumAddressOfPublicKey } from '../../../shared/coins/ethereum-address.ts';
import { deriveXpubPath, parseXpub } from '../../../shared/coins/xpub.ts';
import { multisigRedeemScript } from '../../../shared/coins/script.ts';
import type { ServiceContext } from '../context.ts';
import { badRequest } from '../errors.ts';

/** Each implemented coin on the network this deployment serves it on (mainnet when not served). */
function displayChains(ctx: ServiceContext): ChainParams[] {
  return implementedUtxoCoins().map((coin) => ctx.utxo.get(coin)?.params ?? chainParams(coin, 'mainnet'));
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

export function networkAddressRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post('/address/to_network_addresses', { schema: { body: ExtendedKeys, response: { 200: NetworkAddressesList } } }, async (req) => {
      const chains = displayChains(ctx);
      const keys = req.body.master_keys.map((k, i) => derive(chains, k.xpub, k.path, i));
      const m = req.body.number_of_required_signatures;
      if (m === 0) {
        return keys.map((k) => ({
          addresses: [
            ...k.chains.map((p) => ({ network_address: p2pkhAddressOfPublicKey(p, k.publicKey), coin: p.coin })),
            { network_address: ethereumAddressOfPublicKey(k.publicKey), coin: 'ethereum' },
          ],
          public_keys: [bytesToHex(k.publicKey)],
        }));
      }
      if (m > keys.length) throw badRequest(`number_of_required_signatures is ${m} but only ${keys.length} master keys were given`);
      const redeemScript = multisigRedeemScript(m, keys.map((k) => k.publicKey));
      const common = chains.filter((p) => keys.every((k) => k.chains.includes(p)));
      return [
        {
          addresses: common.map((p) => ({ network_address: p2shAddressOfRedeemScript(p, redeemScript), coin: p.coin })),
          public_keys: keys.map((k) => bytesToHex(k.publicKey)),
        },
      ];
    });
  };
}

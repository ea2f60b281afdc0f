/**
 * Caravan's wallet configuration JSON (Unchained's multisig coordinator): name, addressType,
 * network, quorum {requiredSigners, totalSigners}, extendedPublicKeys [{name, bip32Path, xpub,
 * xfp}], startingAddressIndex. Caravan is Bitcoin-only. addressType is P2SH, P2SH-P2WSH or P2WSH,
 * and Caravan always sorts the keys (BIP67), so its wallets are sortedmulti.
 * Fields we do not use (client, uuid, method, ledgerPolicyHmacs) are accepted and ignored.
 */
import { z } from 'zod';
import { isUtxoCoin, utxoCoinRow } from '../coins/coin-table.ts';
import { normalizeDerivationPath } from './derivation-path.ts';
import { FileFormatError } from './errors.ts';
import type { MultisigScriptType } from '../coins/index.ts';
import { checkSetup, SCRIPT_TYPE_LABEL, type SetupKey, type WalletScript, type WalletSetup } from './setup.ts';

const ADDRESS_TYPES: Readonly<Record<string, MultisigScriptType>> = { P2SH: 'p2sh', 'P2SH-P2WSH': 'p2sh-p2wsh', P2WSH: 'p2wsh' };

const CaravanKey = z.looseObject({
  name: z.string().min(1, 'every key needs a name').max(80),
  bip32Path: z.string().max(200),
  xpub: z.string().min(1).max(200),
  xfp: z.string().regex(/^[0-9a-fA-F]{8}$/, 'xfp must be 8 hex digits').optional(),
});

export const CaravanConfig = z.looseObject({
  name: z.string().max(200),
  addressType: z.string(),
  network: z.string(),
  quorum: z.object({ requiredSigners: z.number().int(), totalSigners: z.number().int() }),
  extendedPublicKeys: z.array(CaravanKey).max(15, 'at most 15 keys'),
  startingAddressIndex: z.number().int().min(0).optional(),
});
export type CaravanConfig = z.infer<typeof CaravanConfig>;

const NETWORKS = {
  mainnet: { coin: 'bitcoin', network: 'mainnet', keys: 'mainnet' },
  testnet: { coin: 'testnet3', network: 'mainnet', keys: 'test' },
  regtest: { coin: 'bitcoin', network: 'regtest', keys: 'test' },
} as const;

const fail = (why: string): never => {
  throw new FileFormatError(`not a usable Caravan wallet file: ${why}`);
};

export function parseCaravan(text: string): WalletSetup {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('it is not JSON');
  }
  const parsed = CaravanConfig.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(`${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  const c = parsed.data;
  const scriptType = ADDRESS_TYPES[c.addressType];
  if (!scriptType) return fail(`its address type "${c.addressType}" is not P2SH, P2SH-P2WSH or P2WSH`);
  const chain = NETWORKS[c.network as keyof typeof NETWORKS];
  if (!chain) return fail(`its network "${c.network}" is not mainnet, testnet or regtest`);
  if (c.quorum.totalSigners !== c.extendedPublicKeys.length) fail(`its quorum says ${c.quorum.totalSigners} signers but it lists ${c.extendedPublicKeys.length} keys`);
  const keys: SetupKey[] = c.extendedPublicKeys.map((k) => ({
    name: k.name,
    xpub: k.xpub.trim(),
    fingerprint: (k.xfp ?? '00000000').toLowerCase(),
    // Caravan writes "Unknown" when it does not know where the key comes from.
    derivationPath: k.bip32Path === 'Unknown' || k.bip32Path === '' ? 'm' : normalizeDerivationPath(k.bip32Path, `${k.name}'s bip32Path`),
  }));
  const keyNetwork = checkSetup(c.quorum.requiredSigners, keys);
  if (keyNetwork !== chain.keys) fail(`the file says ${c.network} but its keys are ${keyNetwork === 'mainnet' ? 'mainnet' : 'test network'} keys`);
  return { format: 'caravan', name: c.name || null, m: c.quorum.requiredSigners, keys, keyNetwork, chain: { coin: chain.coin, network: chain.network }, firstAddress: null, scriptType, sortKeys: true };
}

/** Caravan's network name for a Bitcoin chain, or null for a coin Caravan does not know. */
export function caravanNetwork(coin: string, network: string): 'mainnet' | 'testnet' | 'regtest' | null {
  const row = isUtxoCoin(coin) ? utxoCoinRow(coin) : null;
  if (row === null || !row.caravan) return null;
  if (network === 'regtest') return 'regtest';
  return row.testCoin || network === 'testnet' ? 'testnet' : 'mainnet';
}

/** Caravan sorts keys, so a wallet whose keys keep their order cannot be written (Caravan would show other addresses). */
export function formatCaravan(name: string, network: 'mainnet' | 'testnet' | 'regtest', m: number, keys: readonly SetupKey[], script: WalletScript = { scriptType: 'p2sh', sortKeys: true }): string {
  if (!script.sortKeys) throw new FileFormatError('Caravan always sorts the keys (BIP67); a wallet whose keys keep their given order has other addresses there: export it as a descriptor or a BSMS record');
  const config = {
    name,
    addressType: SCRIPT_TYPE_LABEL[script.scriptType],
    network,
    client: { type: 'public' },
    quorum: { requiredSigners: m, totalSigners: keys.length },
    extendedPublicKeys: keys.map((k) => ({ name: k.name, bip32Path: normalizeDerivationPath(k.derivationPath), xpub: k.xpub, xfp: k.fingerprint, method: 'text' })),
    startingAddressIndex: 0,
  };
  return JSON.stringify(config, null, 2) + '\n';
}

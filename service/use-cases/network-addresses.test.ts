// network-addresses without a service: which network each coin's address is rendered for, and
// which keys it takes, depends only on the backends handed in.
import { describe, expect, it } from 'vitest';
import { p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript, scriptToAddress } from '../../shared/coins/address.ts';
import { multisigScripts } from '../../shared/coins/multisig-script.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { multisigRedeemScript } from '../../shared/coins/script.ts';
import { networkAddresses } from './network-addresses.ts';

// BIP32 test vector 1, m/0' (an xpub of depth 1)
const xpub = 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw';
const regtest = chainParams('litecoin', 'regtest');
const served = new Map([['litecoin' as const, { params: regtest }]]);

const litecoin = chainParams('litecoin', 'mainnet');
const of = (entry: ReturnType<typeof networkAddresses>[number] | undefined, coin: string) => entry!.addresses.find((a) => a.coin === coin)?.address;

describe('networkAddresses', () => {
  it('renders each coin on the network it is served on (mainnet when not served), for keys that network accepts', () => {
    const [mainnet] = networkAddresses(new Map(), [{ xpub, path: '1' }], 0);
    const [key] = mainnet!.publicKeys;
    expect(of(mainnet, 'litecoin')).toBe(p2pkhAddressOfPublicKey(litecoin, key!));
    expect(of(mainnet, 'bitcoin')).toBe(p2pkhAddressOfPublicKey(chainParams('bitcoin', 'mainnet'), key!));
    // litecoin served on regtest takes test-network extended keys only: a mainnet xpub has no litecoin address here
    const [servedRegtest] = networkAddresses(served, [{ xpub, path: '1' }], 0);
    expect(of(servedRegtest, 'litecoin')).toBeUndefined();
    expect(of(servedRegtest, 'bitcoin')).toBe(of(mainnet, 'bitcoin'));
  });

  it('M-of-N: the P2SH of the keys in the order given, with those keys', () => {
    const [entry] = networkAddresses(new Map(), [{ xpub, path: '2' }, { xpub, path: '0' }], 2);
    const keys = entry!.publicKeys;
    expect(keys).toHaveLength(2);
    expect(of(entry, 'litecoin')).toBe(p2shAddressOfRedeemScript(litecoin, multisigRedeemScript(2, keys)));
  });

  it('M-of-N P2WSH with sorted keys: only coins with segwit, bech32 on each one\'s hrp; keys still in the order given', () => {
    const [entry] = networkAddresses(new Map(), [{ xpub, path: '2' }, { xpub, path: '0' }], 2, { scriptType: 'p2wsh', sortKeys: true });
    const keys = entry!.publicKeys;
    const [given] = networkAddresses(new Map(), [{ xpub, path: '2' }, { xpub, path: '0' }], 2);
    expect(keys).toEqual(given!.publicKeys);
    expect(of(entry, 'litecoin')).toBe(scriptToAddress(litecoin, multisigScripts(litecoin, 2, keys, { scriptType: 'p2wsh', sortKeys: true }).scriptPubKey));
    expect(of(entry, 'litecoin')).toMatch(/^ltc1q/);
    expect(of(entry, 'bitcoin')).toMatch(/^bc1q/);
    // Coins without segwit cannot hold the script: not listed.
    expect(of(entry, 'bitcoin_cash')).toBeUndefined();
    expect(of(entry, 'dash')).toBeUndefined();
    expect(entry!.addresses.map((a) => a.coin).sort()).toEqual(['bitcoin', 'bitcoin_gold', 'litecoin', 'testnet3'].filter((c) => of(entry, c) !== undefined).sort());
    const [nested] = networkAddresses(new Map(), [{ xpub, path: '2' }, { xpub, path: '0' }], 2, { scriptType: 'p2sh-p2wsh', sortKeys: true });
    expect(of(nested, 'litecoin')).toMatch(/^M/);
  });

  it('script_type on single-signature keys is refused', () => {
    expect(() => networkAddresses(new Map(), [{ xpub, path: '1' }], 0, { scriptType: 'p2wsh' })).toThrow(/number_of_required_signatures/);
  });
});

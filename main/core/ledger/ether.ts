// An Ether account on a Ledger (Ethereum app, @ledgerhq/hw-app-eth): the EtherSigner of
// ether-signer.ts. The unsigned transaction is decoded and re-hashed here before the device sees
// it, and the device's (r, s, v) must recover to the account's address before it is returned.
import { createRequire } from 'node:module';
import type EthModule from '@ledgerhq/hw-app-eth/lib/Eth';
import { bytesToHex } from '../../../shared/coins/index.ts';
import { signingPayload } from '../../../shared/coins/ethereum-tx.ts';
import { checkedEtherSignature, decodeUnsignedEtherTx, type EtherSigner } from '../ether-signer.ts';
import { requireApp } from './app.ts';
import { LedgerError } from './errors.ts';
import { withLedger, type LedgerConnector, type Transport } from './transport.ts';

// hw-app-eth's ES build imports its own files without extensions, which Node refuses: load the
// CommonJS build. It pins its own @ledgerhq/hw-transport, the same class at run time.
type EthClass = (typeof EthModule)['default'];
type Eth = InstanceType<EthClass>;
type EthTransport = ConstructorParameters<EthClass>[0];
const require = createRequire(import.meta.url);
const EthClass = (require('@ledgerhq/hw-app-eth') as { default: EthClass }).default;
const eth = (t: Transport): Eth => new EthClass(t as unknown as EthTransport);

export const DEFAULT_ETHER_PATH = "m/44'/60'/0'/0/0";

/** The address at `path`, read from the Ethereum app (optionally shown on the device to compare). */
export async function readLedgerEtherAddress(connector: LedgerConnector, path = DEFAULT_ETHER_PATH, display = false): Promise<string> {
  return withLedger(connector, { doing: 'reading the Ether address' }, async (transport, ctx) => {
    await requireApp(transport, 'ethereum', 'mainnet', ctx);
    const { address } = await eth(transport).getAddress(path.replace(/^m\//, ''), display);
    return address;
  });
}

/**
 * The signer of the account `address` at `path`. Each call opens the device: a Ledger is plugged in
 * when a person signs, not for the life of the desk.
 */
export function ledgerEtherSigner(connector: LedgerConnector, address: string, path = DEFAULT_ETHER_PATH): EtherSigner {
  return {
    address: () => Promise.resolve(address),
    async sign(unsignedTxHex) {
      const tx = decodeUnsignedEtherTx(unsignedTxHex);
      return withLedger(connector, { doing: 'signing the Ether transaction' }, async (transport, ctx) => {
        await requireApp(transport, 'ethereum', 'mainnet', ctx);
        const device = eth(transport);
        const { address: onDevice } = await device.getAddress(path.replace(/^m\//, ''), false);
        if (onDevice.toLowerCase() !== address.toLowerCase()) {
          throw new LedgerError('ledger_wrong_key', `this Ledger's key at ${path} is ${onDevice}, not the account's ${address}: connect the account's own device`);
        }
        // What the device signs is our own re-encoding of what we decoded, so it is exactly what we checked.
        const sig = await device.signTransaction(path.replace(/^m\//, ''), bytesToHex(signingPayload(tx)), null);
        return checkedEtherSignature(tx, address, { r: sig.r, s: sig.s, v: `0x${sig.v}` });
      });
    },
  };
}

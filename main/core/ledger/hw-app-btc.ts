// The parts of @ledgerhq/hw-app-btc the desk uses, typed against our Transport. hw-app-btc pins its
// own copy of @ledgerhq/hw-transport, whose class is the same at run time but another type: the
// one cast lives here.
import { getAppAndVersion as getAppAndVersionImpl } from '@ledgerhq/hw-app-btc/lib/getAppAndVersion.js';
import { getWalletPublicKey as getWalletPublicKeyImpl } from '@ledgerhq/hw-app-btc/lib/getWalletPublicKey.js';
import { signP2SHTransaction as signP2SHTransactionImpl } from '@ledgerhq/hw-app-btc/lib/signP2SHTransaction.js';
import type { Transport } from './transport.ts';

type BtcTransport = Parameters<typeof getWalletPublicKeyImpl>[0];
const btc = (t: Transport): BtcTransport => t as unknown as BtcTransport;

export const getAppAndVersion = (t: Transport) => getAppAndVersionImpl(btc(t));
export const getWalletPublicKey = (t: Transport, options: Parameters<typeof getWalletPublicKeyImpl>[1]) => getWalletPublicKeyImpl(btc(t), options);
export const signP2SHTransaction = (t: Transport, arg: Parameters<typeof signP2SHTransactionImpl>[1]) => signP2SHTransactionImpl(btc(t), arg);
export { splitTransaction } from '@ledgerhq/hw-app-btc/lib/splitTransaction.js';

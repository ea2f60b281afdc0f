// The parts of @ledgerhq/hw-app-btc the desk uses, typed against our Transport. hw-app-btc pins its
// own copy of @ledgerhq/hw-transport, whose class is the same at run time but another type: the
// one cast lives here.
import { getAppAndVersion as getAppAndVersionImpl } from '@ledgerhq/hw-app-btc/lib/getAppAndVersion.js';
import { getTrustedInput as getTrustedInputImpl } from '@ledgerhq/hw-app-btc/lib/getTrustedInput.js';
import { getWalletPublicKey as getWalletPublicKeyImpl } from '@ledgerhq/hw-app-btc/lib/getWalletPublicKey.js';
import { hashOutputFull as hashOutputFullImpl } from '@ledgerhq/hw-app-btc/lib/finalizeInput.js';
import { signP2SHTransaction as signP2SHTransactionImpl } from '@ledgerhq/hw-app-btc/lib/signP2SHTransaction.js';
import { signTransaction as signTransactionImpl } from '@ledgerhq/hw-app-btc/lib/signTransaction.js';
import { startUntrustedHashTransactionInput as startUntrustedHashImpl } from '@ledgerhq/hw-app-btc/lib/startUntrustedHashTransactionInput.js';
import type { Transport } from './transport.ts';

type BtcTransport = Parameters<typeof getWalletPublicKeyImpl>[0];
const btc = (t: Transport): BtcTransport => t as unknown as BtcTransport;

export const getAppAndVersion = (t: Transport) => getAppAndVersionImpl(btc(t));
export const getWalletPublicKey = (t: Transport, options: Parameters<typeof getWalletPublicKeyImpl>[1]) => getWalletPublicKeyImpl(btc(t), options);
export const signP2SHTransaction = (t: Transport, arg: Parameters<typeof signP2SHTransactionImpl>[1]) => signP2SHTransactionImpl(btc(t), arg);
type Rest<F> = F extends (t: never, ...rest: infer R) => infer O ? [R, O] : never;
export const startUntrustedHashTransactionInput = (t: Transport, ...a: Rest<typeof startUntrustedHashImpl>[0]) => startUntrustedHashImpl(btc(t), ...a);
export const getTrustedInput = (t: Transport, ...a: Rest<typeof getTrustedInputImpl>[0]) => getTrustedInputImpl(btc(t), ...a);
export const hashOutputFull = (t: Transport, ...a: Rest<typeof hashOutputFullImpl>[0]) => hashOutputFullImpl(btc(t), ...a);
export const signTransaction = (t: Transport, ...a: Rest<typeof signTransactionImpl>[0]) => signTransactionImpl(btc(t), ...a);
export { splitTransaction } from '@ledgerhq/hw-app-btc/lib/splitTransaction.js';

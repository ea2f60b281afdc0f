// What went wrong with a Ledger, in words a treasurer acts on. Each case comes from what the device
// or its USB transport really reports: status words (app-bitcoin-new doc/bitcoin.md, app-bitcoin
// btc.asc, app-ethereum ethapp.adoc, the dashboard's 0x5515) and the transport's own error names.
import { CoordinatorError } from '../errors.ts';

export type LedgerErrorCode =
  | 'ledger_not_found'
  | 'ledger_usb_missing'
  | 'ledger_locked'
  | 'ledger_wrong_app'
  | 'ledger_app_too_old'
  | 'ledger_refused'
  | 'ledger_unplugged'
  | 'ledger_wrong_key'
  | 'ledger_not_registered'
  | 'ledger_failed';

export class LedgerError extends CoordinatorError {
  constructor(code: LedgerErrorCode, message: string) {
    super(code, message);
    this.name = 'LedgerError';
  }
}

/** What the caller knows when the error happens, to name the apps in the message. */
export interface LedgerContext {
  /** The app the operation needs, e.g. "Litecoin". */
  needed?: string;
  /** The app the device reported open, if it was asked. */
  open?: string;
  /** What was being done, e.g. "signing payment 1234abcd". */
  doing?: string;
}

const SW_LOCKED = [0x5515, 0x6982];
const SW_WRONG_APP = [0x6e00, 0x6d00, 0x6511, 0x6e01, 0x6d02];
const SW_DENIED = 0x6985;
/** app-bitcoin-new SW_SIGNATURE_FAIL: the wallet HMAC (or a signature) did not check. */
const SW_SIGNATURE_FAIL = 0xb008;

function statusCodeOf(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null;
  const code = (err as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : null;
}

function nameOf(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { name?: unknown }).name === 'string' ? (err as { name: string }).name : '';
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function isDisconnect(err: unknown): boolean {
  const name = nameOf(err);
  if (name === 'DisconnectedDevice' || name === 'DisconnectedDeviceDuringOperation') return true;
  // node-hid reports a pulled cable as a failed read or write on the HID handle.
  return /could not (read|write) (from|to) HID device|device (was )?disconnected|LIBUSB_ERROR_NO_DEVICE/i.test(messageOf(err));
}

const hexSw = (sw: number) => `0x${sw.toString(16).padStart(4, '0')}`;

/** Turns anything thrown while talking to a Ledger into a LedgerError (CoordinatorErrors pass through). */
export function ledgerErrorOf(err: unknown, ctx: LedgerContext = {}): CoordinatorError {
  if (err instanceof CoordinatorError) return err;
  const doing = ctx.doing ? ` while ${ctx.doing}` : '';
  if (isDisconnect(err)) {
    return new LedgerError('ledger_unplugged', `the Ledger was disconnected${doing}: nothing was stored; plug it in, unlock it and try again`);
  }
  const name = nameOf(err);
  if (name === 'LockedDeviceError') return locked(doing);
  if (name === 'CantOpenDevice' || name === 'TransportOpenUserCancelled' || name === 'NoDeviceFound') {
    return new LedgerError('ledger_not_found', `no Ledger found${doing}: plug it in with a USB cable and unlock it (${messageOf(err)})`);
  }
  // hw-app-eth's name for 0x6A80 on a transaction with call data (an ERC20 transfer) the app will not blind-sign.
  if (name === 'EthAppPleaseEnableContractData') {
    return new LedgerError('ledger_refused', `the Ethereum app refuses to sign a contract call${doing}: turn on "Blind signing" in the Ethereum app's settings on the Ledger, then try again`);
  }
  const sw = statusCodeOf(err);
  if (sw !== null) {
    if (SW_LOCKED.includes(sw)) return locked(doing);
    if (SW_DENIED === sw) return new LedgerError('ledger_refused', `the request was refused on the Ledger${doing}: nothing was signed or stored`);
    if (SW_WRONG_APP.includes(sw)) return wrongApp(ctx, `the open app does not know this command (status ${hexSw(sw)})`);
    if (sw === SW_SIGNATURE_FAIL) {
      return new LedgerError('ledger_not_registered', `the Ledger did not accept this wallet's registration${doing} (status ${hexSw(sw)}): register the wallet on this device again`);
    }
    return new LedgerError('ledger_failed', `the Ledger answered with error status ${hexSw(sw)}${doing}`);
  }
  return new LedgerError('ledger_failed', `talking to the Ledger failed${doing}: ${messageOf(err)}`);
}

function locked(doing: string): LedgerError {
  return new LedgerError('ledger_locked', `the Ledger is locked${doing}: type its PIN on the device, then try again`);
}

export function wrongApp(ctx: LedgerContext, why?: string): LedgerError {
  const open = ctx.open === undefined ? '' : ctx.open === 'BOLOS' ? 'no app is open (the device shows its dashboard)' : `the ${ctx.open} app is open`;
  const need = ctx.needed ? `open the ${ctx.needed} app on the Ledger` : 'open the right app on the Ledger';
  const detail = [open, why].filter(Boolean).join('; ');
  return new LedgerError('ledger_wrong_app', `wrong app on the Ledger: ${detail ? `${detail}; ` : ''}${need} and try again`);
}

/**
 * The desk's words when the optional USB module is not part of this build: what is missing and what
 * to do. What Node said (a module path on this machine) stays in `cause`, for the log only.
 */
export function usbMissing(cause: unknown): LedgerError {
  const err = new LedgerError(
    'ledger_usb_missing',
    'This desk was installed without Ledger USB support, so it cannot reach a Ledger. ' +
      'To use one, install the desk again from a package built with Ledger support (from source: npm install @ledgerhq/hw-transport-node-hid, which needs libusb and libudev). ' +
      'Until then, sign with files: on the payment\'s page, "Export signing request" for the co-signers, then import the signature files they send back',
  );
  err.cause = cause;
  return err;
}

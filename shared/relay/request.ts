// A desk proves which device asks, on the relay's requests that read a room or change its members:
// its Ed25519 key signs the method, the URL and the time. The service accepts a signature within
// REQUEST_WINDOW_MS of its own clock; replaying one within that window reads the same ciphertext.
import { bytesToHex } from '../coins/bytes.ts';
import { type DeviceKeys, signAs, verifyAs } from './device.ts';

export const DEVICE_HEADER = 'x-relay-device';
export const TIME_HEADER = 'x-relay-time';
export const SIGNATURE_HEADER = 'x-relay-signature';
export const REQUEST_WINDOW_MS = 5 * 60_000;

const requestText = (method: string, url: string, time: string) => new TextEncoder().encode(`${method.toUpperCase()} ${url}\n${time}`);

export function signedRequestHeaders(keys: DeviceKeys, method: string, url: string, now: number): Record<string, string> {
  const time = String(now);
  return { [DEVICE_HEADER]: keys.public.id, [TIME_HEADER]: time, [SIGNATURE_HEADER]: bytesToHex(signAs(keys, 'request', requestText(method, url, time))) };
}

export function requestSignatureHolds(sign: Uint8Array, method: string, url: string, time: string, signature: Uint8Array): boolean {
  return verifyAs(sign, 'request', requestText(method, url, time), signature);
}

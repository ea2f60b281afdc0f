/**
 * What the desk shows a signer by QR, chosen by the signer's kind of device: a PSBT (UR
 * crypto-psbt, or BBQr P where every key is a Coldcard's), and a wallet's registration so the
 * device shows change as change and refuses foreign inputs: Coldcard-format text as ur:bytes
 * (Keystone, Passport, Jade) or BBQr U (Coldcard Q), the descriptor as text (SeedSigner, Krux), or
 * for them, when asked, ur:crypto-output (crypto-output.ts).
 * A miniscript vault is registered by its descriptor where the device takes one (Coldcard, Krux)
 * and refused in words where it does not.
 */
import { SIGNER_DEVICE_NAMES, type SignerDevice } from '../api/signer-devices.ts';
import { bbqrFrames, textBbqrFrames } from './bbqr.ts';
import { multisigCryptoOutput } from './crypto-output.ts';
import { psbtUrFrames, textUrFrames, urFrames, type QrDensity } from './ur.ts';

export type QrFormat = 'ur' | 'bbqr';

/**
 * BBQr where every signer is a Coldcard (Coldcard reads UR too, but BBQr is its own and denser), UR
 * otherwise. A signer whose device is not said (null) counts against BBQr: UR is what most devices read.
 */
export function preferredPsbtFormat(devices: readonly (SignerDevice | null)[]): QrFormat {
  return devices.length > 0 && devices.every((d) => d === 'coldcard') ? 'bbqr' : 'ur';
}

export function psbtFrames(psbt: Uint8Array, format: QrFormat, density: QrDensity): string[] {
  return format === 'bbqr' ? bbqrFrames(psbt, 'P', density) : psbtUrFrames(psbt, density);
}

/** A wallet as a device registers it: M-of-N (Coldcard's text and the descriptor) or a vault (its descriptor only). */
export type Registration = { kind: 'multisig'; coldcardText: string; descriptor: string } | { kind: 'miniscript'; descriptor: string };

export type RegistrationFrames = { ok: true; format: string; frames: string[] } | { ok: false; refusal: string };

/** A plain QR of text, readable by any camera app, when it fits one frame; BBQr U frames when not. */
function textFrames(text: string, density: QrDensity): { format: string; frames: string[] } {
  const limit = density === 'high' ? 1200 : 600;
  return text.length <= limit ? { format: 'descriptor as text', frames: [text] } : { format: 'BBQr U (descriptor as text)', frames: textBbqrFrames(text, 'U', density) };
}

/** How a device that reads descriptors is shown an M-of-N wallet: its text (the default), or ur:crypto-output. */
export type DescriptorCode = 'text' | 'crypto-output';

export function registrationFrames(reg: Registration, device: SignerDevice, density: QrDensity, code: DescriptorCode = 'text'): RegistrationFrames {
  const name = SIGNER_DEVICE_NAMES[device];
  if (reg.kind === 'miniscript') {
    if (device === 'coldcard') return { ok: true, format: 'BBQr U (descriptor)', frames: textBbqrFrames(reg.descriptor, 'U', density) };
    if (device === 'krux' || device === 'other') return { ok: true, ...textFrames(reg.descriptor, density) };
    return { ok: false, refusal: `${name} registers M-of-N multisig wallets only, not a vault with recovery paths (miniscript): it cannot check this vault's change or inputs. Sign with its PSBT, and check the addresses on a device that takes the vault's descriptor (Coldcard, Krux, a Ledger).` };
  }
  switch (device) {
    case 'coldcard':
      return { ok: true, format: 'BBQr U (Coldcard multisig file)', frames: textBbqrFrames(reg.coldcardText, 'U', density) };
    case 'keystone':
    case 'passport':
    case 'jade':
      return { ok: true, format: 'ur:bytes (Coldcard multisig file)', frames: textUrFrames(reg.coldcardText, density) };
    case 'seedsigner':
    case 'krux':
    case 'other':
      if (code === 'crypto-output') return { ok: true, format: 'ur:crypto-output', frames: urFrames('crypto-output', multisigCryptoOutput(reg.descriptor), density) };
      return { ok: true, ...textFrames(reg.descriptor, density) };
  }
}

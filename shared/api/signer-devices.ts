// The kinds of air-gapped signer the desk shows QR codes to (issue 34): the bridge validates the
// choice, the renderer names it, shared/qr picks each one's code. Data only.
export const SIGNER_DEVICES = ['coldcard', 'keystone', 'passport', 'jade', 'seedsigner', 'krux', 'other'] as const;
export type SignerDevice = (typeof SIGNER_DEVICES)[number];
export const SIGNER_DEVICE_NAMES: Readonly<Record<SignerDevice, string>> = {
  coldcard: 'Coldcard',
  keystone: 'Keystone',
  passport: 'Passport',
  jade: 'Jade',
  seedsigner: 'SeedSigner',
  krux: 'Krux',
  other: 'another QR signer',
};

/**
 * Specter Desktop's wallet export (its "Export to wallet software" JSON):
 *
 *   { "label": "Treasury", "blockheight": 0,
 *     "descriptor": "wsh(sortedmulti(2,[fp/48h/1h/0h/2h]tpub.../0/*,...))#checksum",
 *     "devices": [{ "type": "coldcard", "label": "Alice" }, ...] }
 *
 * The descriptor is the receive descriptor (/0/*; some versions write /<0;1>/*); the devices name
 * the keys in the descriptor's order. Any chain: the keys say test network or main network.
 */
import { z } from 'zod';
import { parseMultisigDescriptor, formatMultisigDescriptor } from './descriptor.ts';
import { FileFormatError } from './errors.ts';
import type { SetupKey, WalletScript, WalletSetup } from './setup.ts';

export const SpecterWallet = z.looseObject({
  label: z.string().max(200).optional(),
  blockheight: z.number().int().min(0).optional(),
  descriptor: z.string().min(1).max(20_000),
  devices: z.array(z.looseObject({ type: z.string().max(80).optional(), label: z.string().max(80).optional() })).max(15).optional(),
});

const fail = (why: string): never => {
  throw new FileFormatError(`not a usable Specter wallet file: ${why}`);
};

/** Whether parsed JSON is a Specter wallet (it has a descriptor) rather than a Caravan file. */
export function looksLikeSpecter(json: unknown): boolean {
  return typeof json === 'object' && json !== null && 'descriptor' in json;
}

export function parseSpecter(text: string): WalletSetup {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('it is not JSON');
  }
  const parsed = SpecterWallet.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(`${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  const w = parsed.data;
  const d = parseMultisigDescriptor(w.descriptor);
  if (d.branches !== '/0/*' && d.branches !== '/<0;1>/*') fail(`its descriptor ends in ${d.branches}; a wallet's descriptor describes its receive addresses (/0/* or /<0;1>/*)`);
  const devices = w.devices ?? [];
  if (devices.length > 0 && devices.length !== d.keys.length) fail(`it lists ${devices.length} devices for the descriptor's ${d.keys.length} keys`);
  const keys = d.keys.map((k, i) => ({ ...k, name: devices[i]?.label?.trim() || k.name }));
  // Specter writes 0 when it does not know the wallet's first block: no birthday then.
  const birthday = w.blockheight !== undefined && w.blockheight > 0 ? { birthday: w.blockheight } : {};
  return { format: 'specter', name: w.label?.trim() || null, m: d.m, keys, keyNetwork: d.keyNetwork, chain: null, firstAddress: null, scriptType: d.scriptType, sortKeys: d.sortKeys, ...birthday };
}

export function formatSpecter(name: string, m: number, keys: readonly SetupKey[], script: WalletScript, blockheight = 0): string {
  const wallet = {
    label: name,
    blockheight,
    descriptor: formatMultisigDescriptor(m, keys, '/0/*', true, script),
    devices: keys.map((k) => ({ type: 'other', label: k.name })),
  };
  return JSON.stringify(wallet, null, 2) + '\n';
}

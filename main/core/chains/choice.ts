// A chain as the treasurer chooses it in Settings, per coin: their own node, an Electrum server or a
// Blockbook. Pure (zod and the coin table): the bridge validates its input with it and the desk's
// store its saved rows; the node's password is never part of it (chain-settings.ts keeps it apart).
import { z } from 'zod';
import { NETWORK_NAMES } from '../../../shared/coins/coin-table.ts';

const url = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `type the ${what}'s address`)
    .max(500)
    .refine((s) => /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s), `the ${what}'s address starts with http:// or https://, e.g. http://127.0.0.1:9332`);

export const ChainChoice = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('node'),
      network: z.enum(NETWORK_NAMES),
      url: url('node'),
      /** cookie: the node's .cookie file; password: a user (rpcuser or rpcauth) and its password. */
      auth: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('cookie'), cookie_file: z.string().trim().min(1, "type the path of the node's .cookie file").max(1000) }).strict(),
        z.object({ kind: z.literal('password'), username: z.string().trim().min(1, "type the node's RPC user").max(200) }).strict(),
      ]),
    })
    .strict(),
  z
    .object({
      kind: z.literal('electrum'),
      network: z.enum(NETWORK_NAMES),
      host: z.string().trim().min(1, "type the Electrum server's host name or address").max(255).regex(/^[^\s/:]+$|^\[[0-9a-fA-F:]+\]$/, 'the host is a name or an address, without http:// or a port'),
      port: z.number({ error: 'the port is a number from 1 to 65535' }).int('the port is a whole number').min(1, 'the port is a number from 1 to 65535').max(65535, 'the port is a number from 1 to 65535'),
      tls: z.boolean(),
      /** The certificate's SHA-256 to accept (self-signed servers); null: an authority must sign it. */
      pinned_sha256: z
        .string()
        .trim()
        .regex(/^([0-9a-fA-F]{2}:?){31}[0-9a-fA-F]{2}$/, "the pinned certificate is its SHA-256: 64 hex digits, colons allowed (Test connection shows the server's)")
        .nullable(),
    })
    .strict(),
  z.object({ kind: z.literal('blockbook'), network: z.enum(NETWORK_NAMES), url: url('Blockbook') }).strict(),
]);
export type ChainChoice = z.infer<typeof ChainChoice>;

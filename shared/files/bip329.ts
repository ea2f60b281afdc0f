// BIP329 wallet labels: JSON lines, one label a line, read by Sparrow and others. Pure: reading
// validates every line and names each bad one by its line number; writing is one line per label.
import { z } from 'zod';

export const BIP329_TYPES = ['tx', 'addr', 'pubkey', 'input', 'output', 'xpub'] as const;
export type Bip329Type = (typeof BIP329_TYPES)[number];

const txid = /^[0-9a-fA-F]{64}$/;
/** tx: a txid; input/output: txid:index; addr, pubkey, xpub: the text itself. */
const refShape: Record<Bip329Type, (ref: string) => boolean> = {
  tx: (r) => txid.test(r),
  input: (r) => /^[0-9a-fA-F]{64}:\d{1,6}$/.test(r),
  output: (r) => /^[0-9a-fA-F]{64}:\d{1,6}$/.test(r),
  addr: (r) => /^[0-9A-Za-z]{14,120}$/.test(r),
  pubkey: (r) => /^[0-9a-fA-F]{66}$|^[0-9a-fA-F]{130}$/.test(r),
  xpub: (r) => /^[0-9A-Za-z]{100,120}$/.test(r),
};

export const Bip329Record = z
  .object({
    type: z.enum(BIP329_TYPES),
    ref: z.string().min(1, 'ref is empty').max(200),
    label: z.string().max(255, 'a label has at most 255 characters').optional(),
    origin: z.string().max(2000).optional(),
    spendable: z.boolean().optional(),
  })
  .superRefine((r, ctx) => {
    if (!refShape[r.type](r.ref)) ctx.addIssue({ code: 'custom', path: ['ref'], message: `"${r.ref.slice(0, 40)}" is not a ${r.type} reference` });
    if (r.spendable !== undefined && r.type !== 'output') ctx.addIssue({ code: 'custom', path: ['spendable'], message: 'spendable belongs to output records only' });
  });
export type Bip329Record = z.infer<typeof Bip329Record>;

export interface Bip329BadLine {
  /** 1-based, as an editor shows it. */
  line: number;
  problem: string;
}

export type Bip329Read = { ok: true; records: Bip329Record[] } | { ok: false; bad: Bip329BadLine[] };

/** Every non-blank line parsed and validated; one bad line makes the whole file bad (all are listed). */
export function readBip329(text: string): Bip329Read {
  const records: Bip329Record[] = [];
  const bad: Bip329BadLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      bad.push({ line: i + 1, problem: 'not JSON' });
      return;
    }
    const parsed = Bip329Record.safeParse(json);
    if (parsed.success) records.push(parsed.data);
    else bad.push({ line: i + 1, problem: parsed.error.issues.map((e) => (e.path.length ? `${e.path.join('.')}: ${e.message}` : e.message)).join('; ') });
  });
  return bad.length ? { ok: false, bad } : { ok: true, records };
}

/** One JSON line per record, in the order given, each key only when it has a value. */
export function writeBip329(records: readonly Bip329Record[]): string {
  return records
    .map((r) =>
      JSON.stringify({
        type: r.type,
        ref: r.ref,
        ...(r.label !== undefined ? { label: r.label } : {}),
        ...(r.origin !== undefined ? { origin: r.origin } : {}),
        ...(r.spendable !== undefined ? { spendable: r.spendable } : {}),
      }),
    )
    .map((l) => `${l}\n`)
    .join('');
}

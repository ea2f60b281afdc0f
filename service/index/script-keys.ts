// Script keys: history and balance rows name a script by an 8-byte key, not the script itself (25
// to 35 bytes, on ~3.5 history rows per tx). A script's key is the first 8 bytes of its SHA-256.
//
// Exact despite collisions: every key belongs to one script at most. chain_balances keeps each
// key's script, so a writer sees a collision when it adds to a balance row holding another
// script; the newcomer then takes the next free candidate (the next 8 bytes of its hash) and that
// choice is kept in chain_script_keys (script -> key), which holds only such moved scripts. A read
// resolves a script's key there first (nearly always an empty table), and every balance row read
// is checked against its script.
// Loaded by the SQLite writer thread through Node's type stripping: erasable syntax only.
import { hash } from 'node:crypto';

export const SCRIPT_KEY_BYTES = 8;
const CANDIDATES = 4;

/**
 * A script's SHA-256: its first SCRIPT_KEY_BYTES are its key; the LevelDB index checks the next
 * bytes in its F rows (level-rows.ts). One-shot: a Hash object per script was a tenth of the
 * LevelDB writer's time at 1M, half of it in allocating and collecting those objects.
 */
export function scriptHash(script: Uint8Array): Buffer {
  return hash('sha256', script, 'buffer');
}

/** A script's own key: where its rows are unless a collision moved them (chain_script_keys). */
export function scriptKeyOf(script: Uint8Array): Buffer {
  return scriptHash(script).subarray(0, SCRIPT_KEY_BYTES);
}

/** The keys a script takes, in turn, when its own is another script's. */
export function otherScriptKeys(script: Uint8Array): Buffer[] {
  const h = scriptHash(script);
  const keys: Buffer[] = [];
  for (let i = 1; i < CANDIDATES; i++) keys.push(h.subarray(i * SCRIPT_KEY_BYTES, (i + 1) * SCRIPT_KEY_BYTES));
  return keys;
}

/**
 * The first of the script's other keys that `taken` says no script holds: where a script goes
 * when its own key is another's. Four 64-bit candidates all taken is beyond any chain's size.
 */
export function freeScriptKey(script: Uint8Array, taken: (key: Buffer) => boolean): Buffer {
  for (const key of otherScriptKeys(script)) if (!taken(key)) return key;
  throw new Error(`script ${Buffer.from(script).toString('hex')} collides with other scripts on all ${CANDIDATES} of its index keys: the index cannot hold it`);
}

// API keys are random, high-entropy secrets, so a plain SHA-256 is enough to store them: the
// database never holds a usable key.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from './database.ts';
import { toNullableNumber, toNumber } from './database.ts';
import { dropWatchRegistrationsOf } from './watch-generations.ts';

const KEY_PREFIX = 'cs_';

export interface ApiKeyInfo {
  id: string;
  label: string;
  createdAt: number;
  revokedAt: number | null;
}

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export async function createApiKey(store: Store, label: string, now = Date.now()): Promise<{ id: string; key: string }> {
  const id = randomBytes(6).toString('hex');
  const key = `${KEY_PREFIX}${id}_${randomBytes(24).toString('base64url')}`;
  await store.db.insertInto('api_keys').values({ id, key_hash: hashKey(key), label, created_at: now, revoked_at: null }).execute();
  return { id, key };
}

/** Revokes by id (or by the whole key), with the wallets it registered for watching; false when no live key matched. */
export async function revokeApiKey(store: Store, idOrKey: string, now = Date.now()): Promise<boolean> {
  const id = idOrKey.startsWith(KEY_PREFIX) ? (idOrKey.slice(KEY_PREFIX.length).split('_')[0] ?? '') : idOrKey;
  return store.db.transaction().execute(async (trx) => {
    const result = await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await dropWatchRegistrationsOf(trx, id);
    return true;
  });
}

export async function listApiKeys(store: Store): Promise<ApiKeyInfo[]> {
  const rows = await store.db.selectFrom('api_keys').selectAll().orderBy('created_at').execute();
  return rows.map((r) => ({ id: r.id, label: r.label, createdAt: toNumber(r.created_at), revokedAt: toNullableNumber(r.revoked_at) }));
}

/** The id of the live key, or null. */
export async function verifyApiKey(store: Store, key: string): Promise<string | null> {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
  const digest = hashKey(key);
  const row = await store.db
    .selectFrom('api_keys')
    .select(['id', 'key_hash', 'revoked_at'])
    .where('key_hash', '=', digest)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null) return null;
  const same = timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(digest, 'hex'));
  return same ? row.id : null;
}

// The service the desktop app starts in its own process: always on 127.0.0.1 (port 0, no key),
// always its own SQLite file; which chains it serves comes from a file the operator of the desk
// writes (the service's own configuration format, `coins` section). A missing or broken file
// never stops the app: it starts without chains and says why, and Settings can point elsewhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createService, type Service, type ServiceConfigInput } from '../../service/service.ts';

export const EMBEDDED_CONFIG_FILE = 'embedded-service.json';

export interface EmbeddedService {
  service: Service;
  url: string;
  /** Why the embedded service serves no chains, when it serves none. */
  notice: string | null;
}

type CoinsInput = NonNullable<ServiceConfigInput['coins']>;

function readCoins(path: string): { coins: CoinsInput; notice: string | null } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { coins: {}, notice: `the embedded service serves no chains: describe them in ${path} (README: "The desktop app's embedded service") or connect to a remote service here` };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const coins = parsed !== null && typeof parsed === 'object' && 'coins' in parsed ? parsed.coins : undefined;
    if (coins === null || typeof coins !== 'object') return { coins: {}, notice: `${path} has no "coins" object, so the embedded service serves no chains` };
    return { coins: coins as CoinsInput, notice: null };
  } catch (err) {
    return { coins: {}, notice: `${path} is not valid JSON (${err instanceof Error ? err.message : String(err)}), so the embedded service serves no chains` };
  }
}

const configOf = (dataDir: string, coins: CoinsInput): ServiceConfigInput => ({
  listen: { host: '127.0.0.1', port: 0 },
  database: { sqlite: join(dataDir, 'service.sqlite') },
  auth: { required: false },
  coins,
});

/** Starts the embedded service from `<dataDir>/embedded-service.json`; the coins are validated by the service itself. */
export async function startEmbeddedService(dataDir: string, logger: Logger): Promise<EmbeddedService> {
  const path = join(dataDir, EMBEDDED_CONFIG_FILE);
  const read = readCoins(path);
  let notice = read.notice;
  let service: Service;
  try {
    service = await createService(configOf(dataDir, read.coins), { logger });
  } catch (err) {
    notice = `${path} was refused (${err instanceof Error ? err.message : String(err)}), so the embedded service serves no chains`;
    service = await createService(configOf(dataDir, {}), { logger });
  }
  if (notice) logger.warn(notice);
  return { service, url: await service.listen(), notice };
}

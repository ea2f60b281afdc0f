// The service the desktop app starts in its own process: always on 127.0.0.1 (no key), always its
// own SQLite file. Which chains it serves: the chains the treasurer connected in Settings
// (chain-settings.ts) and, for operators, `embedded-service.json` in the data folder (the service's
// own configuration format, `coins` section), both through embeddedCoins(). A missing or broken
// file never stops the app: it starts without those chains and says why. Saving a chain in
// Settings restarts the service, on the same port when it is free.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { nearestWord } from '../../../shared/api/words.ts';
import type { UtxoCoinName } from '../../../shared/coins/coin-table.ts';
import { createService, type Service, type ServiceConfigInput } from '../../../service/service.ts';
import { embeddedCoins, storedChains, type ChainSecrets, type ChainSource, type CoinsInput } from './settings.ts';
import type { CoordinatorStore } from '../store/store.ts';

export const EMBEDDED_CONFIG_FILE = 'embedded-service.json';

function readCoinsFile(path: string): { coins: CoinsInput; problem: string | null; present: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { coins: {}, problem: null, present: false };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    // Only `coins` is read from this file (the service's own format; members named // are
    // comments): anything else is a typo or a setting the desk would drop without a word.
    const stray = parsed !== null && typeof parsed === 'object' ? Object.keys(parsed).filter((k) => k !== 'coins' && !k.startsWith('//')) : [];
    if (stray.length > 0) {
      const words = stray.map((k) => `${k}: unknown field; ${nearestWord(k, ['coins']) === null ? 'the desk reads only "coins" from this file' : 'did you mean coins?'}`);
      return { coins: {}, problem: `${path} is refused (${words.join('; ')}), so the embedded service serves none of its chains`, present: true };
    }
    const coins = parsed !== null && typeof parsed === 'object' && 'coins' in parsed ? parsed.coins : undefined;
    if (coins === null || typeof coins !== 'object') return { coins: {}, problem: `${path} has no "coins" object, so the embedded service serves none of its chains`, present: true };
    return { coins: coins as CoinsInput, problem: null, present: true };
  } catch (err) {
    return { coins: {}, problem: `${path} is not valid JSON (${err instanceof Error ? err.message : String(err)}), so the embedded service serves none of its chains`, present: true };
  }
}

const configOf = (dataDir: string, port: number, coins: CoinsInput): ServiceConfigInput => ({
  listen: { host: '127.0.0.1', port },
  database: { sqlite: join(dataDir, 'service.sqlite') },
  auth: { required: false },
  coins,
});

export interface EmbeddedServiceOptions {
  dataDir: string;
  logger: Logger;
  /** Where Settings keeps the chains (the desk's store) and their passwords; absent: the file only. */
  chains?: { store: Pick<CoordinatorStore, 'setting'>; secrets: ChainSecrets };
}

/** The running embedded service; restart() applies changed chain settings. */
export class EmbeddedServiceHost {
  private current!: Service;
  private address = '';
  /** Why the embedded service serves fewer chains than asked (or none), when it does. */
  notice: string | null = null;
  /** Where each served coin was configured. */
  sources: ReadonlyMap<UtxoCoinName, ChainSource> = new Map();

  private constructor(private readonly options: EmbeddedServiceOptions) {}

  static async start(options: EmbeddedServiceOptions): Promise<EmbeddedServiceHost> {
    const host = new EmbeddedServiceHost(options);
    await host.launch(0);
    return host;
  }

  get service(): Service {
    return this.current;
  }

  get url(): string {
    return this.address;
  }

  private async launch(port: number): Promise<void> {
    const { dataDir, logger, chains } = this.options;
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, EMBEDDED_CONFIG_FILE);
    const file = readCoinsFile(path);
    const saved = chains ? storedChains(chains.store, chains.secrets) : { chains: [], problems: [] };
    const secrets = chains?.secrets ?? (() => { throw new Error('no chain secrets'); });
    const merged = embeddedCoins(file.coins, saved, secrets);
    const notes = [...(file.problem ? [file.problem] : []), ...merged.notes];
    let service: Service;
    let sources = merged.sources;
    const refusal = (err: unknown) => (err instanceof Error ? err.message : String(err));
    try {
      service = await createService(configOf(dataDir, port, merged.coins), { logger });
    } catch (err) {
      // The operator's file refused (a typo, say): the treasurer's Settings chains still serve.
      const settingsOnly = file.present && saved.chains.length > 0 ? embeddedCoins({}, saved, secrets) : null;
      const fallback = settingsOnly ? await createService(configOf(dataDir, port, settingsOnly.coins), { logger }).catch(() => null) : null;
      if (fallback && settingsOnly) {
        notes.push(`${path} was refused (${refusal(err)}), so the embedded service serves none of its chains`);
        service = fallback;
        sources = settingsOnly.sources;
      } else {
        const from = [file.present ? path : null, saved.chains.length > 0 ? 'Settings' : null].filter((x) => x !== null).join(' and ');
        notes.push(`the chains of ${from} were refused (${refusal(err)}), so the embedded service serves none`);
        service = await createService(configOf(dataDir, port, {}), { logger });
        sources = new Map();
      }
    }
    if (sources.size === 0 && notes.length === 0) {
      notes.push(`no chain is connected: connect one in Settings${file.present ? '' : ` (operators may also describe chains in ${path})`}`);
    }
    for (const n of notes) logger.warn(n);
    this.current = service;
    this.sources = sources;
    this.notice = notes.length > 0 ? notes.join('; ') : null;
    this.address = await service.listen();
  }

  /**
   * Stops the service and starts it again with the chains as saved now, on the same port when it
   * is still free (clients keep their address); resolves to the address.
   */
  async restart(): Promise<string> {
    const port = Number(new URL(this.address).port);
    await this.current.close();
    try {
      await this.launch(port);
    } catch (err) {
      if (!(err instanceof Error && 'code' in err && err.code === 'EADDRINUSE')) throw err;
      await this.current.close().catch(() => undefined);
      await this.launch(0);
    }
    return this.address;
  }

  close(): Promise<void> {
    return this.current.close();
  }
}

/** Starts the embedded service from the saved chains and `<dataDir>/embedded-service.json`. */
export function startEmbeddedService(dataDir: string, logger: Logger, chains?: EmbeddedServiceOptions['chains']): Promise<EmbeddedServiceHost> {
  return EmbeddedServiceHost.start({ dataDir, logger, ...(chains ? { chains } : {}) });
}

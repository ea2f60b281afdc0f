// Which service the desk talks to, switchable at runtime. Core and the bridge hold `connection.api`
// once; it forwards every call to the current ApiClient, so embedded and remote share one code path.
import { ApiClient, ApiClientError } from '../../../shared/api/client.ts';
import { CoordinatorError } from '../errors.ts';
import type { SecretStore } from '../secrets.ts';
import type { CoordinatorStore } from '../store/store.ts';

/** The v2 API as the desk uses it: ApiClient's public surface, every method of it. */
export type ServiceApi = { [K in keyof ApiClient]: ApiClient[K] };

export type ServiceMode = 'embedded' | 'remote';

export type ServiceChoice = { mode: 'embedded' } | { mode: 'remote'; baseUrl: string; apiKey: string };

export interface ConnectionOptions {
  store: CoordinatorStore;
  secrets: SecretStore;
  /** The service this process started on 127.0.0.1 (no key: it listens on loopback only). */
  embeddedUrl: string;
  actor: string;
  /** For tests: how to build a client. */
  client?: (baseUrl: string, apiKey?: string) => ApiClient;
}

const MODE = 'service.mode';
const REMOTE_URL = 'service.remote_url';

/** Only http and https, no credentials or fragment in the URL (a key belongs in X-API-KEY). */
export function normalizeServiceUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CoordinatorError('bad_input', 'the service address is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CoordinatorError('bad_input', 'the service address must start with http:// or https://');
  if (url.username || url.password) throw new CoordinatorError('bad_input', 'put the API key in its own field, not in the address');
  url.hash = '';
  url.search = '';
  return url.href.replace(/\/+$/, '');
}

export class ServiceConnection {
  private client: ApiClient;
  private current: { mode: ServiceMode; url: string };
  /** Why the saved connection could not be restored at start, if it could not. */
  notice: string | null = null;
  readonly api: ServiceApi;

  constructor(private options: ConnectionOptions) {
    this.current = { mode: 'embedded', url: options.embeddedUrl };
    this.client = this.make(options.embeddedUrl);
    const restored = this.saved();
    if (restored.mode === 'remote' && restored.url) {
      const key = options.secrets.load();
      if (key) {
        this.current = { mode: 'remote', url: restored.url };
        this.client = this.make(restored.url, key);
      } else {
        this.notice = `the API key for ${restored.url} is no longer stored (${options.secrets.persistent ? 'it could not be read' : 'web mode forgets it when the desk stops'}); the desk uses the embedded service until you enter it again`;
      }
    }
    // Methods read this.client at call time, so a switch reaches everyone holding `api`.
    const c = () => this.client;
    this.api = new Proxy({} as ServiceApi, {
      get: (_target, name) => {
        const client = c() as unknown as Record<string | symbol, unknown>;
        const member = client[name];
        return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(client) : member;
      },
    });
  }

  private make(baseUrl: string, apiKey?: string): ApiClient {
    // The desk marks every figure provisional while the service's index lags (its sync bar reads
    // /status), so it takes the provisional answers rather than a 503 per panel.
    return this.options.client?.(baseUrl, apiKey) ?? new ApiClient({ baseUrl, ...(apiKey ? { apiKey } : {}), timeoutMs: 30_000, acceptProvisional: true });
  }

  private saved(): { mode: ServiceMode; url: string | null } {
    const { store } = this.options;
    return { mode: store.setting(MODE) === 'remote' ? 'remote' : 'embedded', url: store.setting(REMOTE_URL) };
  }

  get mode(): ServiceMode {
    return this.current.mode;
  }

  get url(): string {
    return this.current.url;
  }

  get embeddedUrl(): string {
    return this.options.embeddedUrl;
  }

  /** The embedded service restarted at `url` (chain settings changed): embedded mode follows it. */
  embeddedMoved(url: string): void {
    if (url === this.options.embeddedUrl) return;
    this.options = { ...this.options, embeddedUrl: url };
    if (this.current.mode === 'embedded') {
      this.current = { mode: 'embedded', url };
      this.client = this.make(url);
    }
  }

  /** The remote address last saved (kept when switching back to embedded, to prefill the form). */
  get remoteUrl(): string | null {
    return this.saved().url;
  }

  /** How the key is kept, for the Settings screen (never the key). */
  keyStorage(): { description: string; persistent: boolean; problem: string | null } {
    const { secrets } = this.options;
    return { description: secrets.description, persistent: secrets.persistent, problem: secrets.problem() };
  }

  get keyStored(): boolean {
    return this.options.secrets.load() !== null;
  }

  /**
   * Switches only to a connection that answers: a remote service is asked for its status with the
   * key first. On any refusal the current connection stays as it was.
   */
  async switchTo(choice: ServiceChoice): Promise<void> {
    const { store, secrets, actor } = this.options;
    if (choice.mode === 'embedded') {
      secrets.clear();
      store.setSettings({ [MODE]: 'embedded' });
      this.current = { mode: 'embedded', url: this.options.embeddedUrl };
      this.client = this.make(this.options.embeddedUrl);
      this.notice = null;
      store.audit(actor, 'service.connect', 'embedded service');
      return;
    }
    const url = normalizeServiceUrl(choice.baseUrl);
    const problem = secrets.problem();
    if (problem) throw new CoordinatorError('key_storage_refused', `${problem}; the connection was not changed`);
    const candidate = this.make(url, choice.apiKey);
    try {
      await candidate.status();
    } catch (err) {
      // A hostile or broken service could echo the key in its message: it must not reach the screen.
      const why = (err instanceof Error ? err.message : String(err)).split(choice.apiKey).join('[key]');
      if (err instanceof ApiClientError && (err.status === 401 || err.status === 403)) {
        throw new CoordinatorError('key_refused', `the key was refused by the service at ${url} (${why}); the connection was not changed`);
      }
      throw new CoordinatorError('service_unreachable', `the service at ${url} did not answer its status (${why}); the connection was not changed`);
    }
    secrets.save(choice.apiKey);
    store.setSettings({ [MODE]: 'remote', [REMOTE_URL]: url });
    this.current = { mode: 'remote', url };
    this.client = candidate;
    this.notice = null;
    // The audit names the address, never the key.
    store.audit(actor, 'service.connect', `remote service ${url}`);
  }
}

// The renderer's side of the bridge: Electron's preload object when present, otherwise HTTP to the
// web-mode server with the per-run token or the session cookie. Both satisfy the one Bridge type.
import { parseApiJson, stringifyApiJson } from '../../shared/api/json.ts';
import type { Bridge, BridgeInput, BridgeOutput, BridgeResult, Channel } from '../../main/bridge/contract.ts';

declare global {
  interface Window {
    countersign?: Bridge;
  }
}

const TOKEN_KEY = 'countersign.token';
const NO_TOKEN = 'this page has no access token: open the URL the desk printed when it started';

interface WebSession {
  /** This tab's token, when it came in the printed URL. */
  token: string | null;
  /** Settles once the token has been traded for the session cookie (at once when there is none to trade). */
  ready: Promise<void>;
}

/**
 * Takes the token from the URL fragment once, keeps it for this tab and clears the URL, and trades
 * it for the desk's HttpOnly session cookie, so a link opened in another tab of this browser works
 * for as long as the desk runs.
 */
function webSession(): WebSession {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (!match?.[1]) return { token: sessionStorage.getItem(TOKEN_KEY), ready: Promise.resolve() };
  const token = match[1];
  sessionStorage.setItem(TOKEN_KEY, token);
  window.history.replaceState(null, '', `${window.location.pathname}#/`);
  const ready = fetch('./session', { method: 'POST', headers: { authorization: `Bearer ${token}` } }).then(
    () => undefined,
    () => undefined,
  );
  return { token, ready };
}

function httpBridge(): Bridge {
  const { token, ready } = webSession();
  return {
    async invoke<C extends Channel>(channel: C, input: BridgeInput<C>): Promise<BridgeResult<BridgeOutput<C>>> {
      await ready;
      let res: Response;
      try {
        // Without a token of its own, the tab relies on the session cookie (sent with same-origin requests).
        res = await fetch(`./bridge/${channel}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: stringifyApiJson(input),
        });
      } catch {
        return { ok: false, error: { code: 'offline', message: 'the desk cannot be reached: is it still running?' } };
      }
      if (res.status === 401 && !token) return { ok: false, error: { code: 'forbidden', message: NO_TOKEN } };
      const text = await res.text();
      try {
        return parseApiJson(text) as BridgeResult<BridgeOutput<C>>;
      } catch {
        // Not the bridge's JSON (a failure of the web server itself): words, not the parser's message.
        return { ok: false, error: { code: 'internal', message: `the desk answered with an error (HTTP ${res.status}) instead of a result; see its log` } };
      }
    },
  };
}

export const bridge: Bridge = window.countersign ?? httpBridge();

export class BridgeCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The input field the refusal concerns, if one. */
    readonly field: string | null = null,
    /** The wallet the refusal names, to link to. */
    readonly walletId: string | null = null,
  ) {
    super(message);
  }
}

/** Calls a channel and returns its value, or throws its message for the screen to show. */
export async function call<C extends Channel>(channel: C, input: BridgeInput<C>): Promise<BridgeOutput<C>> {
  const result = await bridge.invoke(channel, input);
  if (!result.ok) throw new BridgeCallError(result.error.code, result.error.message, result.error.field ?? null, result.error.wallet_id ?? null);
  return result.value;
}

// The renderer's side of the bridge: Electron's preload object when present, otherwise HTTP to the
// web-mode server with the per-run token. Both satisfy the one Bridge type.
import { parseApiJson, stringifyApiJson } from '../../shared/api/json.ts';
import type { Bridge, BridgeInput, BridgeOutput, BridgeResult, Channel } from '../../main/bridge/contract.ts';

declare global {
  interface Window {
    countersign?: Bridge;
  }
}

const TOKEN_KEY = 'countersign.token';

/** Takes the token from the URL fragment once, then keeps it for this tab only and clears the URL. */
function webToken(): string | null {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (match?.[1]) {
    sessionStorage.setItem(TOKEN_KEY, match[1]);
    window.history.replaceState(null, '', `${window.location.pathname}#/`);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

function httpBridge(): Bridge {
  const token = webToken();
  return {
    async invoke<C extends Channel>(channel: C, input: BridgeInput<C>): Promise<BridgeResult<BridgeOutput<C>>> {
      if (!token) return { ok: false, error: { code: 'forbidden', message: 'this page has no access token: open the URL the desk printed when it started' } };
      let res: Response;
      try {
        res = await fetch(`./bridge/${channel}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: stringifyApiJson(input),
        });
      } catch {
        return { ok: false, error: { code: 'offline', message: 'the desk cannot be reached: is it still running?' } };
      }
      return parseApiJson(await res.text()) as BridgeResult<BridgeOutput<C>>;
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

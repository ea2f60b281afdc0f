// Secrets out of URLs before they reach a log or a message. A client may send its API key as
// ?api_key= (the service reads only X-API-KEY, but the URL is logged all the same), a database or
// node URL may carry a password, and a key pasted into a path is still a key.

const HIDDEN = '***';

/** Query parameters that carry credentials, by name (case, "-" and "_" aside). */
const SECRET_NAMES = /^(x_?)?(api_?key|key|token|access_token|refresh_token|id_token|auth|authorization|bearer|password|passwd|pwd|pass|secret|client_secret|credentials?|cookie|session(_?id)?|private_?key|privkey|xprv|wif|seed|mnemonic|signature_key)$|_(key|token|secret|password)$/;

// The service's own API keys (store/api-keys.ts) and extended private keys, wherever they stand.
const API_KEY = /cs_[0-9a-f]{12}_[A-Za-z0-9_-]{16,}/g;
const EXTENDED_PRIVATE_KEY = /\b[a-zA-Z]prv[1-9A-HJ-NP-Za-km-z]{100,}/g;

function secretName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // a malformed escape: judged as written
  }
  return SECRET_NAMES.test(decoded.toLowerCase().replaceAll('-', '_'));
}

/**
 * The URL (absolute, or a request's path and query) with the password of its user part, the values
 * of credential-like query parameters, and any API or extended private key hidden. Pure.
 */
export function redactUrl(url: string): string {
  let out = url.replace(/\/\/([^:@/?#]*):[^@/?#]*@/, `//$1:${HIDDEN}@`);
  const q = out.indexOf('?');
  if (q >= 0) {
    const hash = out.indexOf('#', q);
    const end = hash >= 0 ? hash : out.length;
    const params = out
      .slice(q + 1, end)
      .split('&')
      .map((p) => {
        const eq = p.indexOf('=');
        return eq >= 0 && secretName(p.slice(0, eq)) ? `${p.slice(0, eq)}=${HIDDEN}` : p;
      });
    out = `${out.slice(0, q + 1)}${params.join('&')}${out.slice(end)}`;
  }
  return out.replace(API_KEY, `cs_${HIDDEN}`).replace(EXTENDED_PRIVATE_KEY, HIDDEN);
}

/** Request headers that carry credentials: never logged, whatever logs a request's headers. */
export const SECRET_HEADERS = ['authorization', 'x-api-key', 'cookie', 'proxy-authorization'] as const;

// Secrets out of URLs before they are logged: credential-like query parameters, a URL's password,
// and the service's API keys or extended private keys wherever they stand.
import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact.ts';

const KEY = 'cs_0123456789ab_AbCdEfGhIjKlMnOpQrStUvWxYz012345';

describe('redactUrl', () => {
  it('hides credential-like query parameters, keeping the others and their order', () => {
    expect(redactUrl(`/address/balance/litecoin/LQTpS3?api_key=${KEY}&token_type=x`)).toBe('/address/balance/litecoin/LQTpS3?api_key=***&token_type=x');
    expect(redactUrl('/status?limit=5&apikey=s3cret&X-Api-Key=s3cret&access_token=t&password=p&client_secret=c&offset=2')).toBe(
      '/status?limit=5&apikey=***&X-Api-Key=***&access_token=***&password=***&client_secret=***&offset=2',
    );
    expect(redactUrl('/x?key=abc&auth=def&session_id=9&coingecko_key=1')).toBe('/x?key=***&auth=***&session_id=***&coingecko_key=***');
    expect(redactUrl('/x?api%5Fkey=abc#frag')).toBe('/x?api%5Fkey=***#frag');
  });

  it('keeps the API contract parameters that are not secrets', () => {
    const url = '/transaction/sign_and_send/litecoin?signatures=30440220&public_keys=02ab&sort_keys=true&signature=3044&xpub=xpub661';
    expect(redactUrl(url)).toBe(url);
  });

  it('hides an API key or an extended private key anywhere, and a URL password', () => {
    expect(redactUrl(`/address/balance/litecoin/${KEY}`)).toBe('/address/balance/litecoin/cs_***');
    const xprv = `xprv9s21ZrQH143K${'a'.repeat(95)}`;
    expect(redactUrl(`/x?xpub=${xprv}`)).toBe('/x?xpub=***');
    expect(redactUrl('postgresql://countersign:hunter2@db:5432/cs')).toBe('postgresql://countersign:***@db:5432/cs');
    expect(redactUrl('http://user:pw@127.0.0.1:9332/?token=1')).toBe('http://user:***@127.0.0.1:9332/?token=***');
  });

  it('leaves a URL without secrets as it is', () => {
    for (const url of ['/status', '/address/history/litecoin/a,b?limit=10&offset=0', 'http://127.0.0.1:9332/', '/x?flag', '/x?=']) expect(redactUrl(url)).toBe(url);
  });
});

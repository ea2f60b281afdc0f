// A message signed by a co-signer's key on the Ledger (the relay's binding of a device key to the
// co-signer's wallet key, issue 35): app-bitcoin-new's SIGN_MESSAGE (doc/bitcoin.md, INS 0x10) through
// ledger-bitcoin, which answers the 65-byte compact signature over Bitcoin's signed-message hash
// ("\x18Bitcoin Signed Message:\n"), base64: the format shared/files/signed-message.ts verifies. The
// legacy-protocol apps (Litecoin, Dash, ...) sign with their coin's own message prefix, which the
// desk does not verify; they are refused in words, and such a co-signer compares a code instead.
import { AppClient } from 'ledger-bitcoin';
import type { CoinName, NetworkName } from '../../../shared/coins/index.ts';
import { requireApp } from './app.ts';
import { LedgerError } from './errors.ts';
import { formatPath, parsePath } from './paths.ts';
import { withLedger, type LedgerConnector } from './transport.ts';

/** `message` signed by the Ledger's key at `path` (the co-signer's key in the wallet), base64. */
export async function signMessageOnLedger(connector: LedgerConnector, coin: CoinName, network: NetworkName, path: string, message: string): Promise<string> {
  const steps = parsePath(path);
  if (steps.length === 0) throw new LedgerError('ledger_failed', "the invitation does not say where the co-signer's key is on the device (its path is unknown): join without the Ledger and compare the code with the treasurer");
  return withLedger(connector, { doing: 'signing the relay binding' }, async (transport, ctx) => {
    const app = await requireApp(transport, coin, network, ctx);
    if (app.protocol !== 'psbt') {
      throw new LedgerError(
        'ledger_app_too_old',
        `the ${app.name} app ${app.version} signs messages in its own coin's format, which the desk does not check: only the Bitcoin app 2.1 and later binds a relay device by key. Join without the Ledger and compare the code with the treasurer`,
      );
    }
    return new AppClient(transport).signMessage(Buffer.from(message, 'utf8'), formatPath(steps));
  });
}

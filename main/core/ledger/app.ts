// Which Ledger app a coin needs, which one is open (the GET_APP_AND_VERSION APDU, CLA 0xB0 INS
// 0x01, answered by the dashboard and by every app), and so which protocol to speak with it.
import { getAppAndVersion } from './hw-app-btc.ts';
import { coinRow, isUtxoCoin, utxoCoinRow, type CoinName, type NetworkName, type UtxoLedgerAppRow } from '../../../shared/coins/index.ts';
import { LedgerError, wrongApp, type LedgerContext } from './errors.ts';
import type { Transport } from './transport.ts';

/**
 * - psbt: Bitcoin app >= 2.1 (app-bitcoin-new: wallet policies, PSBT), via ledger-bitcoin.
 * - legacy: the app-bitcoin protocol (Litecoin, Dash, Bitcoin Cash, Bitcoin Gold, Zcash apps and
 *   Bitcoin < 2.1), via @ledgerhq/hw-app-btc.
 * - ethereum: the Ethereum app, via @ledgerhq/hw-app-eth.
 */
export type LedgerProtocol = 'psbt' | 'legacy' | 'ethereum';

export interface OpenApp {
  name: string;
  version: string;
  protocol: LedgerProtocol;
}

/** The coin's Ledger app on this network, from its row (shared/coins/coin-data.ts). */
function ruleFor(coin: CoinName, network: NetworkName): { names: readonly string[]; minimum: string; psbtFrom?: string; protocol: 'legacy' | 'ethereum' } {
  const app = coinRow(coin).ledger;
  if (app === null) throw new LedgerError('ledger_wrong_app', `${coin} has no Ledger app: sign its payments with files instead`);
  const names = network !== 'mainnet' && app.testNames ? app.testNames : app.names;
  return { ...app, names };
}

const utxoApp = (coin: CoinName): UtxoLedgerAppRow | null => (isUtxoCoin(coin) ? utxoCoinRow(coin).ledger : null);

/** The address format the coin's app is asked to display ('cashaddr': Bitcoin Cash). */
export const ledgerAddressFormat = (coin: CoinName): 'legacy' | 'cashaddr' => utxoApp(coin)?.addressFormat ?? 'legacy';

/** The coin's app derives only Zcash account keys (m/44'/133'/a') and exports no master key. */
export const derivesAccountKeysOnly = (coin: CoinName): boolean => utxoApp(coin)?.keyPath === 'zcash-account';

/** The app a person must open for this coin (for messages). */
export const neededApp = (coin: CoinName, network: NetworkName): string => ruleFor(coin, network).names[0]!;

/** Compares dotted versions numerically ("2.10.0" > "2.9.1"); a pre-release suffix is ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[-+]/)[0]!.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export async function readOpenApp(transport: Transport): Promise<{ name: string; version: string }> {
  const { name, version } = await getAppAndVersion(transport);
  return { name, version };
}

/**
 * Asks the device which app is open and checks it is the coin's, recent enough for `need`
 * ('any' = whatever protocol the version speaks; 'psbt' = wallet policies). Fills ctx for messages.
 */
export async function requireApp(transport: Transport, coin: CoinName, network: NetworkName, ctx: LedgerContext, need: 'any' | 'psbt' = 'any'): Promise<OpenApp> {
  const rule = ruleFor(coin, network);
  ctx.needed = rule.names[0]!;
  const { name, version } = await readOpenApp(transport);
  ctx.open = name;
  if (!rule.names.includes(name)) throw wrongApp(ctx);
  if (compareVersions(version, rule.minimum) < 0) {
    throw new LedgerError('ledger_app_too_old', `the ${name} app on the Ledger is version ${version}; the desk needs ${rule.minimum} or later: update it with Ledger Live`);
  }
  const legacyNamed = name.endsWith('Legacy');
  const protocol: LedgerProtocol = rule.protocol === 'ethereum' ? 'ethereum' : rule.psbtFrom && !legacyNamed && compareVersions(version, rule.psbtFrom) >= 0 ? 'psbt' : 'legacy';
  if (need === 'psbt' && protocol !== 'psbt') {
    throw new LedgerError(
      'ledger_app_too_old',
      rule.psbtFrom
        ? `the ${name} app version ${version} cannot register a multisig wallet or a vault, or show its addresses: that needs the ${rule.names[0]} app ${rule.psbtFrom} or later (update it with Ledger Live)`
        : `the ${name} app cannot register a multisig wallet or a vault: only the Bitcoin app 2.1 and later can; sign ${coin} multisig payments on it without registering`,
    );
  }
  return { name, version, protocol };
}

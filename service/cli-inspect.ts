// `countersign tx inspect`: a co-signer's check of a transaction before signing it, offline. It
// imports only shared/coins, so it starts without the service's database or server stack.
import { parseArgs } from 'node:util';
import { bytesToHex } from '../shared/coins/bytes.ts';
import { NETWORK_NAMES, chainParams, implementedUtxoCoins, isCoinName, isUtxoCoin } from '../shared/coins/coin-table.ts';
import type { ChainParams, NetworkName } from '../shared/coins/coin-table.ts';
import { formatReport, inspectTransaction } from '../shared/coins/inspect.ts';
import type { TransactionReport } from '../shared/coins/inspect.ts';

export const TX_USAGE = `  countersign tx inspect --coin COIN [--network NET] [--amounts A,B,...] [--json] HEX|-
                                            decode and check a transaction before signing it:
                                            HEX, or - to read it from standard input; NET is
                                            mainnet (default), testnet or regtest; --amounts is
                                            each input's spent value in smallest units, in order`;

/** Bad input: printed as one line, exit status 2. */
export class InspectInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InspectInputError';
  }
}

export interface InspectArgs {
  params: ChainParams;
  amounts?: bigint[];
  json: boolean;
  /** The hex as given, or '-' for standard input. */
  source: string;
}

function paramsFor(coin: string | undefined, network: string | undefined): ChainParams {
  const supported = implementedUtxoCoins().join(', ');
  if (coin === undefined) throw new InspectInputError(`tx inspect needs --coin COIN (one of: ${supported})`);
  if (!isCoinName(coin)) throw new InspectInputError(`unknown coin "${coin}" (expected one of: ${supported})`);
  if (!isUtxoCoin(coin)) throw new InspectInputError(`${coin} is not a UTXO coin: tx inspect reads Bitcoin-family transactions (${supported})`);
  const net = network ?? 'mainnet';
  if (!(NETWORK_NAMES as readonly string[]).includes(net)) throw new InspectInputError(`unknown network "${net}" (expected mainnet, testnet or regtest)`);
  return chainParams(coin, net as NetworkName);
}

function parseAmounts(text: string, params: ChainParams): bigint[] {
  return text.split(',').map((part) => {
    const a = part.trim();
    if (!/^\d+$/.test(a)) {
      throw new InspectInputError(
        `--amounts: "${a}" is not a whole number of ${params.coin}'s smallest unit (amounts are in units: 150000000 is 1.5 with ${params.decimals} decimals)`,
      );
    }
    return BigInt(a);
  });
}

/** The arguments after `tx inspect`. */
export function parseInspectArgs(argv: readonly string[]): InspectArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { coin: { type: 'string' }, network: { type: 'string' }, amounts: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    });
  } catch (e) {
    throw new InspectInputError(e instanceof Error ? e.message : String(e));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const params = paramsFor(values.coin, values.network);
  const [source, ...extra] = positionals;
  if (source === undefined) throw new InspectInputError('tx inspect needs the transaction: its hex, or - to read the hex from standard input');
  if (extra.length > 0) throw new InspectInputError(`tx inspect takes one transaction, got ${positionals.length} arguments`);
  return { params, ...(values.amounts === undefined ? {} : { amounts: parseAmounts(values.amounts, params) }), json: values.json === true, source };
}

/** Hex as people paste it: line breaks and spaces are dropped, anything else must be hex digits. */
export function transactionBytes(text: string): Uint8Array {
  const hex = text.replace(/\s+/g, '');
  if (hex.length === 0) throw new InspectInputError('no transaction given: the hex is empty');
  if (!/^[0-9a-fA-F]*$/.test(hex)) {
    throw new InspectInputError(`the transaction is not valid hex: only 0-9 and a-f are allowed${hex.startsWith('0x') ? ' (remove the 0x prefix)' : ''}`);
  }
  if (hex.length % 2 !== 0) throw new InspectInputError(`the transaction hex has an odd number of digits (${hex.length}): one is missing or extra`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** The report as JSON: bigints as decimal strings, bytes as hex. */
export function reportToJson(report: TransactionReport): string {
  return JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value instanceof Uint8Array ? bytesToHex(value) : value), 2);
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}

/** `tx <action> ...`: what to print on success; bad input throws (the CLI exits 2 with the message). */
export async function txCommand(argv: readonly string[]): Promise<string> {
  const [action, ...rest] = argv;
  if (action !== 'inspect') throw new InspectInputError(`unknown tx action "${action ?? ''}" (expected: tx inspect)`);
  const args = parseInspectArgs(rest);
  if (args === 'help') return `usage:\n${TX_USAGE}\ncoins: ${implementedUtxoCoins().join(', ')}\n`;
  const bytes = transactionBytes(args.source === '-' ? await readStdin() : args.source);
  const report = inspectTransaction(args.params, bytes, args.amounts === undefined ? {} : { amounts: args.amounts });
  return args.json ? `${reportToJson(report)}\n` : formatReport(report);
}

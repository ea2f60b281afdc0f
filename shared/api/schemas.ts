// The v2 contract (published as docs/openapi.json, meaning settled in docs/api-decisions.md): the
// service validates requests with these schemas and the client parses responses with them.
import { z } from 'zod';
import { COIN_NAMES } from '../coins/coin-table.ts';
import { MULTISIG_SCRIPT_TYPES } from '../coins/multisig-script.ts';
import { SignedUnitsOut, UnitsIn, UnitsOut } from './amounts.ts';

export const Coin = z.enum(COIN_NAMES);
export type Coin = z.infer<typeof Coin>;

const hex = (what: string) => z.string().regex(/^(0x)?([0-9a-fA-F]{2})*$/, `${what} must be hex`);
const index = z.number().int().nonnegative();

// ---- responses -------------------------------------------------------------------------------

export const Balance = z.object({
  usd_balance: z.number(),
  balance: UnitsOut,
  unconfirmed_balance: SignedUnitsOut,
  human_balance: z.number(),
  human_unconfirmed_balance: z.number(),
});
export type Balance = z.infer<typeof Balance>;

export const AddrBalance = Balance.extend({ address: z.string() });
export type AddrBalance = z.infer<typeof AddrBalance>;

export const Balances = z.object({ totals: Balance, addresses: z.array(AddrBalance) });
export type Balances = z.infer<typeof Balances>;

export const HistoryTx = z.object({
  confirmations: index,
  time: index,
  is_deposit: z.boolean(),
  address: z.string(),
  amount: UnitsOut,
  human_amount: z.number(),
  // Extension: the transaction this entry belongs to (the spec's entry cannot be traced otherwise).
  txid: z.string().optional().describe('Extension beyond the spec: the transaction this entry belongs to.').meta({ 'x-countersign-extension': true }),
  // Extension: the block that confirmed it, so a desk can record when a payment confirmed rather than when it looked.
  block_height: index.optional().describe('Extension beyond the spec: the height of the block that holds the transaction; absent while it is unconfirmed.').meta({ 'x-countersign-extension': true }),
});
export type HistoryTx = z.infer<typeof HistoryTx>;

export const History = z.object({ total_txs: index, txs: z.array(HistoryTx) });
export type History = z.infer<typeof History>;

/** The spec's unspent output, as v1 serves it. */
export const SpecUtxo = z.object({ amount: UnitsOut, vout: index, txid: z.string(), script_pub_key: z.string() });
export const Utxo = SpecUtxo.extend({
  // Extension: how deep the output is, so a wallet can age its coins without reading its history.
  height: index.nullable().describe('Extension beyond the spec: the height of the block that holds the transaction; null while it is unconfirmed.').meta({ 'x-countersign-extension': true }),
  confirmations: index.describe("Extension beyond the spec: the transaction's confirmations at the service's indexed tip (0 while unconfirmed).").meta({ 'x-countersign-extension': true }),
});
export type Utxo = z.infer<typeof Utxo>;
export const Utxos = z.object({
  utxos: z.array(Utxo),
  // Extension: a page of a longer list (docs/api-decisions.md, section 6); absent when the list is whole.
  next_cursor: z
    .string()
    .optional()
    .describe('Extension beyond the spec: present only when more unspent outputs follow this page; send it as cursor for the next page. Absent: the list is complete.')
    .meta({ 'x-countersign-extension': true }),
});
export type Utxos = z.infer<typeof Utxos>;

export const NetworkAddress = z.object({ network_address: z.string(), coin: z.string() });
export const NetworkAddresses = z.object({ addresses: z.array(NetworkAddress), public_keys: z.array(z.string()) });
export type NetworkAddresses = z.infer<typeof NetworkAddresses>;
export const NetworkAddressesList = z.array(NetworkAddresses);

export const HashToSign = z.object({ input_index: index, public_key: z.string(), hash_to_sign: z.string() });
export type HashToSign = z.infer<typeof HashToSign>;
const ext = { 'x-countersign-extension': true } as const;
// Extension (docs/api-decisions.md, section 12): wsh miniscript vaults spent on a chosen path.
const miniscriptExt = (text: string) => ({ description: `Extension beyond the spec (miniscript vaults): ${text}`, 'x-countersign-extension': true });
// Extension: how the multisig script pays (docs/api-decisions.md, section 8). Absent: p2sh, keys as given.
export const ScriptType = z.enum(MULTISIG_SCRIPT_TYPES);
const scriptTypeField = ScriptType.optional()
  .describe('Extension beyond the spec: p2sh (the default), p2sh-p2wsh or p2wsh; the segwit types only on coins with segwit.')
  .meta(ext);
const sortKeysField = z.boolean().optional().describe('Extension beyond the spec: sort the keys by BIP67 (default false: the order given).').meta(ext);
export const InputSpent = z.object({
  txid: z.string(),
  vout: index,
  amount: UnitsOut,
  script_type: z.enum(['p2pkh', ...MULTISIG_SCRIPT_TYPES]),
  script: z.string().describe('The redeem script (p2sh), the witness script (segwit types) or the P2PKH scriptPubKey, hex.'),
  script_pub_key: z.string(),
  miniscript: z.string().optional().meta(miniscriptExt('the miniscript the witness script compiles from.')),
  path: z
    .object({
      index,
      older: index.nullable().describe('The relative timelock in blocks; null for a path without one.'),
      keys: z.array(z.string()).describe('The keys that can sign on this path (hex).'),
      signatures: index.describe('The fewest signatures a satisfaction of this path holds.'),
    })
    .optional()
    .meta(miniscriptExt('the path this input is spent on.')),
  sequence: index.optional().meta(miniscriptExt("the input's nSequence.")),
  height: index.nullable().optional().meta(miniscriptExt('the block holding the coin (null while unconfirmed).')),
  spendable_at_height: index
    .nullable()
    .optional()
    .meta(miniscriptExt("the first block that can hold this spend on its path (the coin's block + older); null while the coin is unconfirmed.")),
});
export type InputSpent = z.infer<typeof InputSpent>;
export const HashesToSign = z.object({
  tx: z.string(),
  total_input_value: UnitsOut,
  hashes: z.array(HashToSign),
  // Extension, present when a treasury field (outputs, inputs, fee_rate, replaceable) was used.
  miners_fee: UnitsOut.optional().describe('Extension beyond the spec, present when a treasury field is used: the network fee the transaction pays.').meta(ext),
  vsize: z
    .number()
    .int()
    .optional()
    .describe('Extension beyond the spec, present when a treasury field is used: the virtual size the fee was computed for, signatures at their largest.')
    .meta(ext),
  replaces: z
    .array(z.string())
    .optional()
    .describe('Extension beyond the spec: the mempool transactions this one replaces (BIP125), when its inputs are spent by them.')
    .meta(ext),
});
export type HashesToSign = z.infer<typeof HashesToSign>;
/** Endpoint 9's answer: HashesToSign, with the per-input statement when the extension fields are used. */
export const MultisigHashesToSign = HashesToSign.extend({
  inputs: z
    .array(InputSpent)
    .optional()
    .describe('Extension beyond the spec, present when a redeem script says script_type or sort_keys: what each input spends, amounts read from the chain.')
    .meta(ext),
});
export type MultisigHashesToSign = z.infer<typeof MultisigHashesToSign>;

export const EthereumToSign = z.object({ tx: z.string(), hash_to_sign: z.string() });
export type EthereumToSign = z.infer<typeof EthereumToSign>;

export const SendStatus = z.object({ status_code: z.number().int(), message: z.string() });
export type SendStatus = z.infer<typeof SendStatus>;

/** Extension: a transaction's bytes by txid, for PSBT and hardware signers. */
export const RawTransaction = z.object({ txid: z.string(), hex: z.string() });
export type RawTransaction = z.infer<typeof RawTransaction>;

/** Extension: an ERC20 token's own name, symbol and decimals, read from its contract. */
export const Erc20Token = z.object({
  contract: z.string().describe('the contract address, EIP-55'),
  name: z.string().nullable().describe('what name() answers; null when the contract has no name fit to show'),
  symbol: z.string().nullable().describe('what symbol() answers; null when the contract has no symbol fit to show'),
  decimals: z.number().int().min(0).max(255).describe('what decimals() answers: raw units = amount x 10^decimals'),
});
export type Erc20Token = z.infer<typeof Erc20Token>;

export const ErrorMessage = z.object({ message: z.string() });
export type ErrorMessage = z.infer<typeof ErrorMessage>;

/** Extension: the fee rates to build with, per confirmation target. */
export const FeeEstimate = z.object({
  blocks: z.number().int().describe('the confirmation target asked for'),
  fee_rate: z.number().int().describe("smallest units per virtual byte, rounded up to a whole unit: what create's fee_rate takes"),
  units_per_kvbyte: z.number().int().describe('the same rate exactly, in smallest units per 1000 virtual bytes'),
  source: z.enum(['node', 'fallback']).describe("node: the node's own estimate; fallback: the node has none (regtest, a quiet chain) and the configured fallback rate is given"),
});
export const FeeEstimates = z.object({
  coin: z.string(),
  backend: z.string(),
  fallback_fee_rate: z.number().int().describe('the configured fallback, smallest units per virtual byte (rounded up)'),
  estimates: z.array(FeeEstimate),
});
export type FeeEstimates = z.infer<typeof FeeEstimates>;

/** Extension: the first block at or after a moment, by the node's block times (a wallet's birthday). */
export const HeightAt = z.object({
  coin: z.string(),
  time: z.number().int().describe('the moment asked for, unix seconds'),
  height: z.number().int().describe('the first block whose median time past is at or after time; tip_height + 1 when no block is yet'),
  block_hash: z.string().nullable().describe('that block; null when it is not mined yet'),
  median_time: z.number().int().nullable().describe("that block's median time past (BIP113), unix seconds"),
  tip_height: z.number().int(),
});
export type HeightAt = z.infer<typeof HeightAt>;

// Extension: indexer progress per coin.
export const CoinStatus = z.object({
  coin: z.string(),
  network: z.string(),
  backend: z.string(),
  tip_height: z.number().int().nullable(),
  indexed_height: z.number().int().nullable(),
  lag: z.number().int().nullable(),
  mempool_txs: z.number().int(),
  error: z.string().nullable(),
  /** Scale-out: whether this instance runs the coin's indexer (leader) or reads what another wrote (follower). */
  role: z.enum(['leader', 'follower']).optional(),
  /**
   * Extension, UTXO coins: whether this deployment's node relays BIP125 replacements (its
   * operator's word, else the coin's default). False: a fee bump or cancel is refused at create (409).
   */
  replacements: z.boolean().optional().describe("UTXO coins: whether this deployment's node relays BIP125 replacements; false: replacements are refused (409), use child-pays-for-parent"),
  /** Extension, coins on the service's own index: full (every address) or watch (registered wallets only). */
  index: z
    .enum(['full', 'watch'])
    .optional()
    .describe("coins read from the service's own index of a node: full (every address of the chain) or watch (only wallets registered with PUT /watch, each API key's own); absent where the upstream indexes"),
  /** Extension, watch mode: registered wallets whose scan is still running (their addresses answer 503). */
  watch_scans: z.number().int().optional().describe('watch index: wallets of every API key whose scan is still running; their own addresses answer 503, the others are not held up'),
});
export const Status = z.object({ coins: z.array(CoinStatus) });
export type Status = z.infer<typeof Status>;

// ---- requests --------------------------------------------------------------------------------

const coin = z.string().describe(`one of ${COIN_NAMES.join(', ')}; a deployment serves those it is configured for (404 otherwise)`);
export const CoinParams = z.object({ coin });
export const HeightAtParams = z.object({
  coin,
  unix_time: z.coerce
    .number({ error: 'unix_time is a whole number of seconds since 1970' })
    .int('unix_time is a whole number of seconds since 1970')
    .min(1_231_006_505, 'unix_time is before the first block of any chain (2009-01-03)')
    .max(32_503_680_000, 'unix_time is after the year 3000'),
});
export const TxidParams = z.object({ coin, txid: z.string().regex(/^[0-9a-fA-F]{64}$/, 'txid must be 64 hex digits') });
export const AddressParams = z.object({ coin, address: z.string().min(1, 'address is required') });
export const ContractParams = z.object({ contract: z.string().min(1, 'contract is required').describe('an ERC20 contract address on ethereum (0x and 40 hex digits)') });
export const AddressesParams = z.object({ coin, addresses: z.string().min(1, 'addresses is required').describe('comma-separated addresses of the coin') });

// ---- watch mode (a node backend with index 'watch'; docs/api-decisions.md) -------------------

/** The highest address index a watch window is extended to: a vault's address is many key derivations. */
export const MAX_SHOWN_INDEX = 100_000;
export const WatchParams = z.object({
  coin,
  wallet_id: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'wallet_id must be 1 to 64 letters, digits, dots, dashes or underscores')
    .describe("the caller's name for the wallet; registrations are kept per API key"),
});
const shownIndex = z.number().int().min(-1).max(MAX_SHOWN_INDEX);
/** The highest index of each branch a wallet has shown (-1: none). */
export const Shown = z.object({ receive: shownIndex, change: shownIndex }).strict();
export const WatchRegistration = z
  .object({
    descriptors: z
      .array(z.string().min(1).max(4_000))
      .min(1, 'descriptors: give one multipath descriptor or two (receive and change)')
      .max(2, 'descriptors: at most two (receive and change)')
      .describe('sh/wsh/sh(wsh) multi or sortedmulti over xpubs: one with /<0;1>/*, or one with /0/* and one with /1/*'),
    birthday_height: z.number().int().min(0).nullable().describe('the first block that can hold its transactions; null: from genesis'),
    gap_limit: z.number().int().min(1).max(1_000).default(20).describe('unused addresses derived past the last used one, per branch'),
    shown: Shown.optional().describe('the highest index of each branch the wallet has shown (handed out, or asked about): watched with gap_limit past it, so a coin there is found even when the addresses before it look unused (emptied before a pruned node\'s first block)'),
  })
  .strict();
export const WatchWindow = z.object({ shown: Shown }).strict();
export const WatchRescan = z.object({ from_height: z.number().int().min(0) }).strict();
export const WatchStatus = z.object({
  birthday_height: z.number().int().nullable(),
  scanned_height: z.number().int().nullable().describe('the index holds every block up to this height'),
  tip_height: z.number().int().nullable().describe("the node's tip (null: not answering)"),
  blocks_checked: z.number().int().describe('blocks looked at since the scan last started over (a registration, a rescan, or more addresses watched): their filter, or the block itself without filters'),
  blocks_matched: z.number().int().describe("blocks whose filter matched a watched script"),
  blocks_fetched: z.number().int().describe('blocks fetched and parsed'),
  filters: z.boolean().describe('whether the node serves BIP158 block filters (-blockfilterindex=1); without them every block from the birthday is read'),
  pruned: z.boolean().describe("whether the node prunes old blocks (then it has no block filters): its unspent outputs below the prune height come from its UTXO set (scantxoutset, checked by gettxout), the history from the blocks it holds"),
  history_from: z.number().int().nullable().describe('a pruned node holds no blocks below this height: history before it is not available from this node'),
  history_limit: z
    .string()
    .nullable()
    .optional()
    .describe("history_from in words (null when nothing is missing): what is proven, no more: the unspent outputs of the watched addresses are complete (older than it, from the node's UTXO set); the history starts there"),
  watched: z
    .object({ receive: z.number().int(), change: z.number().int() })
    .optional()
    .describe('how many addresses of each branch are watched (indexes 0 to n - 1): the gap limit past the highest index used or shown; an address query for one further out is a 404 until POST .../window extends it'),
  state: z
    .enum(['scanning', 'ready', 'error'])
    .describe("scanning: the wallet's blocks are being read (its addresses answer 503, or provisional figures to a client that accepts them); ready: its scan reached the tip and its unspent outputs equalled the node's scantxoutset, and it stays ready while it follows new blocks"),
  scan: z
    .number()
    .int()
    .optional()
    .describe('which scan of the wallet this is: 1 from its registration, one more at each rescan or each time addresses whose blocks must be read again are watched. scanned_height never goes back within one scan; a new scan starts again from its own first block'),
  scan_from: z.number().int().nullable().optional().describe('the first block the scan under way reads (null: none under way, the wallet follows the tip)'),
  error: z.string().optional(),
});
export type WatchStatus = z.infer<typeof WatchStatus>;

export const TokenQuery = z.object({
  contract_id: z.string().optional(),
  decimal_places: z.coerce.number().int().min(0).max(77).optional(),
});
export const HistoryQuery = TokenQuery.extend({
  // Extension: paging (docs/api-decisions.md).
  limit: z.coerce.number().int().min(1).max(1000).default(50).describe('Extension beyond the spec: entries per page.').meta({ 'x-countersign-extension': true }),
  offset: z.coerce.number().int().min(0).default(0).describe('Extension beyond the spec: entries to skip, newest first.').meta({ 'x-countersign-extension': true }),
});

/** The most unspent outputs one answer holds (service/index/unspent-page.ts UNSPENT_PAGE_MAX). */
export const UTXOS_PAGE_MAX = 1000;

export const UtxosQuery = z.object({
  // Extension: paging (docs/api-decisions.md, section 6). Without it, the first page.
  limit: z.coerce.number().int().min(1).max(UTXOS_PAGE_MAX).default(UTXOS_PAGE_MAX).describe(`Extension beyond the spec: unspent outputs per page (default and most ${UTXOS_PAGE_MAX}).`).meta({ 'x-countersign-extension': true }),
  cursor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Extension beyond the spec: where the page starts, the next_cursor (or X-Countersign-Next-Cursor header) of the previous page; absent for the first page.')
    .meta({ 'x-countersign-extension': true }),
});

export const ExtendedKey = z.object({ xpub: z.string().min(1), path: z.string().default('m') });
export const ExtendedKeys = z.object({
  number_of_required_signatures: z.number().int().min(0).max(15).default(0),
  master_keys: z.array(ExtendedKey).min(1, 'master_keys needs at least one key').max(15),
  script_type: scriptTypeField,
  sort_keys: sortKeysField,
});
export type ExtendedKeys = z.infer<typeof ExtendedKeys>;
export type ExtendedKeysInput = z.input<typeof ExtendedKeys>;

// Extensions: treasury payments (docs/api-decisions.md, section 8).
export const MAX_PAYMENT_OUTPUTS = 1000;
export const MAX_PAYMENT_INPUTS = 1000;
const txidText = z.string().regex(/^[0-9a-fA-F]{64}$/, 'txid must be 64 hex digits');
export const OutpointIn = z
  .union([
    z
      .string()
      .regex(/^[0-9a-fA-F]{64}:[0-9]{1,10}$/, 'an input is txid:vout (64 hex digits, a colon, the output index)')
      .transform((v) => ({ txid: v.slice(0, 64), vout: Number(v.slice(65)) })),
    z.object({ txid: txidText, vout: index }),
  ], { error: 'an input is "txid:vout" (64 hex digits, a colon, the output index) or {txid, vout}' })
  .transform((o) => ({ txid: o.txid.toLowerCase(), vout: o.vout }));
export const PaymentOutputIn = z.object({ to: z.string().min(1, 'to is required'), amount: UnitsIn });
export const TreasuryFields = z.object({
  outputs: z
    .array(PaymentOutputIn)
    .min(1, 'outputs needs at least one recipient')
    .max(MAX_PAYMENT_OUTPUTS, `at most ${MAX_PAYMENT_OUTPUTS} outputs per payment`)
    .optional()
    .describe('Extension beyond the spec: several recipients [{to, amount}], paid in this order; instead of to and amount.')
    .meta(ext),
  inputs: z
    .array(OutpointIn)
    .min(1, 'inputs needs at least one outpoint')
    .max(MAX_PAYMENT_INPUTS, `at most ${MAX_PAYMENT_INPUTS} inputs per payment`)
    .optional()
    .describe('Extension beyond the spec (coin control): the outputs to spend, each "txid:vout" or {txid, vout}; all of them are spent, no others.')
    .meta(ext),
  allow_unconfirmed: z
    .boolean()
    .optional()
    .describe('Extension beyond the spec: with inputs, false refuses an input whose transaction is unconfirmed (default true).')
    .meta(ext),
  fee_rate: UnitsIn.refine((v) => v >= 1n, 'fee_rate must be at least 1 unit per vbyte')
    .optional()
    .describe("Extension beyond the spec: the fee rate in the coin's smallest units per virtual byte; instead of miners_fee.")
    .meta(ext),
  replaceable: z
    .boolean()
    .optional()
    .describe('Extension beyond the spec: BIP125 opt-in replacement, sequence 0xFFFFFFFD on every input (default false); only on coins whose nodes relay replacements.')
    .meta(ext),
});
export type TreasuryFields = z.infer<typeof TreasuryFields>;
export type TreasuryFieldsInput = z.input<typeof TreasuryFields>;

export const CreateTransactionQuery = z.object({
  to: z.string().min(1),
  from: z.string().min(1),
  amount: UnitsIn,
  fee_address: z.string().min(1).optional(),
  fee_amount: UnitsIn.optional(),
  miners_fee: UnitsIn.optional(),
});
export type CreateTransactionQuery = z.input<typeof CreateTransactionQuery>;
/** v2's endpoint 6: to and amount may give way to the body's outputs (extension). */
export const CreateTransactionQueryV2 = CreateTransactionQuery.extend({
  to: z.string().min(1).optional().describe('The recipient; required unless the body gives outputs.'),
  amount: UnitsIn.optional().describe('The amount; required unless the body gives outputs.'),
});
export type CreateTransactionQueryV2 = z.input<typeof CreateTransactionQueryV2>;
/** v2's endpoint 6 takes the treasury extensions as an optional JSON body (a query cannot hold 1,000 outputs). */
export const CreateTransactionBody = TreasuryFields.nullish(); // no body at all: fastify hands null

export const Signature = z.object({
  hash_to_sign: hex('hash_to_sign'),
  signature: hex('signature').min(2, 'signature is empty'),
  public_key: z.string().min(1),
  input_index: index,
});
export type Signature = z.infer<typeof Signature>;
export const Signatures = z.object({
  tx: hex('tx').min(2, 'tx is empty'),
  signatures: z.array(Signature),
});
export type Signatures = z.infer<typeof Signatures>;

export const SendRawQuery = z.object({ rawtx: hex('rawtx').min(2, 'rawtx is empty') });

export const RedeemScript = z.object({
  public_keys: z.array(z.string()).min(1).max(15).optional().describe('The M-of-N keys (hex); required unless the entry is a miniscript vault (descriptor, miniscript or witness_script).'),
  script_type: scriptTypeField,
  sort_keys: sortKeysField,
  descriptor: z.string().min(1).max(10_000).optional().meta(miniscriptExt('the vault as wsh(<miniscript>) with concrete compressed keys in hex, checksum optional (checked when given); instead of public_keys.')),
  miniscript: z.string().min(1).max(10_000).optional().meta(miniscriptExt('the bare miniscript inside wsh(), concrete keys; instead of descriptor.')),
  witness_script: hex('witness_script').min(2).max(7_200).optional().meta(miniscriptExt('the vault as its P2WSH witness script (hex), read back as miniscript; with descriptor or miniscript, the script they must compile to exactly.')),
  path: z.number().int().min(0).max(255).optional().meta(miniscriptExt('the spending path, by index: the path without a timelock first, then by ascending older(); required for a miniscript vault.')),
  sequence: z.number().int().min(0).max(0xffffffff).optional().meta(miniscriptExt("the nSequence of every input from this vault (BIP68); default the path's older() in blocks, or 0xFFFFFFFF (0xFFFFFFFD with replaceable) on a path without one.")),
});
export const MultiSigPayment = TreasuryFields.extend({
  number_of_required_signatures: z.number().int().min(1).max(15).optional().describe('M of the M-of-N redeem scripts; required unless every entry is a miniscript vault (their paths say how many sign).'),
  amount: UnitsIn.optional().describe('The amount; required unless outputs is given.'),
  to: z.string().min(1).optional().describe('The recipient; required unless outputs is given.'),
  fee_amount: UnitsIn.optional(),
  fee_address: z.string().min(1).optional(),
  miners_fee: UnitsIn.optional(),
  redeem_scripts: z.array(RedeemScript).min(1, 'redeem_scripts needs at least one redeem script'),
});
export type MultiSigPayment = z.input<typeof MultiSigPayment>;

// Endpoints 11-14 (Ether and ERC20). Amounts are in GWEI (of the token, for ERC20): docs/api-decisions.md.
const ethAddress = z.string().min(1);
export const EthereumCreateQuery = z.object({
  to: ethAddress,
  from: ethAddress,
  amount: UnitsIn,
  gas_price: UnitsIn.optional(),
  gas_limit: UnitsIn.optional(),
});
export type EthereumCreateQuery = z.input<typeof EthereumCreateQuery>;
const rsv = {
  r: z.string().regex(/^(0x)?[0-9a-fA-F]{1,64}$/, 'r must be hex (up to 32 bytes)'),
  s: z.string().regex(/^(0x)?[0-9a-fA-F]{1,64}$/, 's must be hex (up to 32 bytes)'),
  v: z.string().regex(/^(0x[0-9a-fA-F]+|[0-9]+)$/, 'v must be 27, 28 or an EIP-155 value'),
};
export const EthereumSendQuery = EthereumCreateQuery.extend(rsv);
export type EthereumSendQuery = z.input<typeof EthereumSendQuery>;
export const Erc20CreateQuery = EthereumCreateQuery.extend({
  contract_id: ethAddress,
  decimal_places: z.coerce.number().int().min(0).max(77),
});
export type Erc20CreateQuery = z.input<typeof Erc20CreateQuery>;
export const Erc20SendQuery = Erc20CreateQuery.extend(rsv);
export type Erc20SendQuery = z.input<typeof Erc20SendQuery>;

// ---- extension: historical USD rates (docs/api-decisions.md) --------------------------------------

/** Unix seconds, comma-separated: one or more times (at most 500) whose daily USD rate is asked. */
export const PriceHistoryQuery = z.object({
  at: z
    .string()
    .regex(/^\d{1,12}(,\d{1,12}){0,499}$/, 'at is one or more unix times in seconds, comma-separated (at most 500)')
    .describe('Extension beyond the spec: unix times in seconds, comma-separated (at most 500).'),
});
export const PriceAt = z.object({
  at: z.number().int().describe('the time asked, unix seconds'),
  day: z.string().describe('its UTC day (YYYY-MM-DD): rates are daily'),
  usd_rate: z.number().nullable().describe("USD per whole coin that day; null when the price source has none or does not answer"),
});
export const PriceHistory = z.object({ coin: z.string(), rates: z.array(PriceAt) });
export type PriceHistory = z.infer<typeof PriceHistory>;

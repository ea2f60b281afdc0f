// Ether accounts against a real `hardhat node`, the service embedded as the desk runs it, and
// OpenZeppelin's ERC20 (18 decimals) plus a 6-decimal token: tokens are followed with the decimals
// and symbol their contracts report (typed values the chain contradicts are refused); software-key
// accounts send Ether and tokens; balances and history move as they should; a service that tampers
// with what it builds, a wrong key, short funds and a stale nonce are refused clearly with nothing
// broadcast.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDNodeWallet, Wallet, getAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../shared/api/client.ts';
import { bytesToHex, hexToBytes } from '../../../shared/coins/bytes.ts';
import { erc20TransferData, signingHash, signingPayload, type LegacyTx } from '../../../shared/coins/ethereum-tx.ts';
import { deploy, fundEther, mintedToken, sixDecimalsToken, startHardhat, type HardhatNode } from '../../../dev/chains/hardhat.ts';
import { deployOddToken } from '../../../dev/chains/odd-tokens.ts';
import { startDevService, type DevService } from '../../../dev/dev-service.ts';
import { CoordinatorError } from '../errors.ts';
import { decodeUnsignedEtherTx, softwareEtherSigner } from '../ether-signer.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { accountFunds, accountHistory, addToken, createAccount, type AccountDeps } from './accounts.ts';
import { memoryAccountSecrets } from './keys.ts';
import { confirmSend, proposeSend, refreshSend } from './sends.ts';

const ETH = 10n ** 18n;
// A published test mnemonic (BIP39's all-"abandon" vector): for tests only, never for funds.
const WORDS = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const OTHER_KEY = `0x${'42'.repeat(32)}`;

let node: HardhatNode;
let dev: DevService;
let dir: string;
let store: CoordinatorStore;
let deps: AccountDeps;
let tamper: ((body: { tx: string; hash_to_sign: string }) => { tx: string; hash_to_sign: string }) | null = null;
let dsk: string;
let six: string;
let accountId: string;
let address: string;
const bob = Wallet.createRandom().address;
const carol = Wallet.createRandom().address;

/** The real service, with a hook that may rewrite what create answers (a dishonest service). */
const tamperingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (!tamper || !res.ok || !/\/(ethereum|erc20)\/create\//.test(String(input))) return res;
  const body = JSON.parse(await res.text()) as { tx: string; hash_to_sign: string };
  return new Response(JSON.stringify(tamper(body)), { status: 200, headers: { 'content-type': 'application/json' } });
};

/** A consistent tampered answer: the changed transaction with its own correct hash. */
const rebuilt = (change: (tx: LegacyTx) => LegacyTx) => (body: { tx: string }) => {
  const tx = change(decodeUnsignedEtherTx(body.tx));
  return { tx: `0x${bytesToHex(signingPayload(tx))}`, hash_to_sign: `0x${bytesToHex(signingHash(tx))}` };
};

const nonceOf = async (a: string) => Number(BigInt((await node.provider.send('eth_getTransactionCount', [a, 'pending'])) as string));
const weiOf = async (a: string) => BigInt((await node.provider.send('eth_getBalance', [a, 'latest'])) as string);

beforeAll(async () => {
  node = await startHardhat();
  dir = mkdtempSync(join(tmpdir(), 'countersign-accounts-'));
  dev = await startDevService(null, dir, { pollIntervalMs: 100, ethereum: { node, usdRate: 2000 } });
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api: new ApiClient({ baseUrl: dev.url, fetch: tamperingFetch }), actor: 'test', secrets: memoryAccountSecrets() };
  const account = await createAccount(deps, { kind: 'software', name: 'Operations', key: { source: 'mnemonic', words: WORDS } });
  accountId = account.id;
  address = account.address;
  await fundEther(node, address, 10n * ETH);
  dsk = await mintedToken(node, 'Desk Token', 'DSK', address, 1000n * ETH);
  const sixToken = await deploy(node, sixDecimalsToken(), [10n ** 12n]);
  await (await sixToken.getFunction('transfer')(address, 500n * 10n ** 6n)).wait();
  six = sixToken.address;
}, 180_000);

afterAll(async () => {
  store?.close();
  await dev?.service.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Ether accounts', () => {
  it('derives a software account from recovery words at m/44\'/60\'/0\'/0/0 and keeps the key out of SQLite', async () => {
    expect(address).toBe(HDNodeWallet.fromPhrase(WORDS, undefined, "m/44'/60'/0'/0/0").address);
    const fromKey = await createAccount(deps, { kind: 'software', name: 'Raw key', key: { source: 'private_key', privateKey: OTHER_KEY } });
    expect(fromKey.address).toBe(new Wallet(OTHER_KEY).address);
    expect(fromKey.chainId).toBe(31337n); // the service's ethereum network is regtest (hardhat)
    const fresh = await createAccount(deps, { kind: 'software', name: 'Fresh', key: { source: 'generate' } });
    expect(fresh.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await expect(createAccount(deps, { kind: 'software', name: 'Again', key: { source: 'mnemonic', words: WORDS } })).rejects.toThrow(/already the account "Operations"/);
    await expect(createAccount(deps, { kind: 'software', name: 'Typo', key: { source: 'mnemonic', words: WORDS.replace('about', 'abut') } })).rejects.toThrow(/not a valid BIP39 mnemonic/);
    // Nothing secret in the database's files (main file and write-ahead log, as bytes on disk).
    const disk = ['desk.sqlite', 'desk.sqlite-wal'].map((f) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f)).toString('latin1') : '')).join('');
    expect(disk).toContain(fromKey.address); // the account is there...
    expect(disk).not.toContain('abandon'); // ...its words and keys are not
    expect(disk).not.toContain('42'.repeat(32));
    expect(disk).not.toContain(Buffer.from('42'.repeat(32), 'hex').toString('latin1'));
  });

  it('follows tokens by contract alone, with the decimals and symbol the contracts report', async () => {
    const dskToken = await addToken(deps, accountId, { contract: dsk });
    expect(dskToken).toEqual({ contract: getAddress(dsk), symbol: 'DSK', decimals: 18 });
    // typed values that agree with the chain are fine (and checked)
    await addToken(deps, accountId, { contract: six, symbol: 'SIX', decimals: 6 });
    expect(store.accounts.tokens(accountId)).toEqual([
      { contract: getAddress(dsk), symbol: 'DSK', decimals: 18 },
      { contract: getAddress(six), symbol: 'SIX', decimals: 6 },
    ]);
    expect(store.auditLog().at(-1)?.detail).toBe(`account ${accountId} follows SIX (${getAddress(six)}, 6 decimals as the contract reports)`);
    await expect(addToken(deps, accountId, { contract: bob })).rejects.toThrow(/the service refuses this token: field "contract": .* is not a contract on this chain/);
  });

  it('refuses typed decimals or a symbol the chain contradicts, storing nothing', async () => {
    const other = await mintedToken(node, 'Other Token', 'OTH', address, 1n);
    const before = { tokens: store.accounts.tokens(accountId), audit: store.auditLog().length };
    await expect(addToken(deps, accountId, { contract: other, decimals: 6 })).rejects.toThrow(
      new CoordinatorError('bad_token', `${getAddress(other)} has 18 decimals on the chain, not the 6 typed: every amount would be off by a factor of 10^12. Nothing was added.`),
    );
    await expect(addToken(deps, accountId, { contract: other, symbol: 'USDT', decimals: 18 })).rejects.toThrow(`${getAddress(other)} is OTH on the chain, not the USDT typed. Nothing was added.`);
    // a contract without decimals() cannot be followed at all; one without a symbol needs a name typed
    await expect(addToken(deps, accountId, { contract: await deployOddToken(node, 'NoDecimals') })).rejects.toThrow(/refused the call decimals\(\).*not a usable ERC20 token/);
    const noBalances = await deployOddToken(node, 'NoNameNoSymbol'); // decimals() and nothing else
    await expect(addToken(deps, accountId, { contract: noBalances, symbol: 'ODD' })).rejects.toThrow(/eth_call reverted/);
    const bare = await mintedToken(node, 'Unsymbolled', '', address, 7n * ETH);
    await expect(addToken(deps, accountId, { contract: bare })).rejects.toThrow(/reports no symbol: type a symbol/);
    expect(store.accounts.tokens(accountId)).toEqual(before.tokens);
    expect(store.auditLog()).toHaveLength(before.audit);
    // named by the person where the contract has no symbol; its decimals still the chain's
    expect(await addToken(deps, accountId, { contract: bare, symbol: 'UNS' })).toEqual({ contract: getAddress(bare), symbol: 'UNS', decimals: 18 });
    expect(store.accounts.tokens(accountId)).toHaveLength(before.tokens.length + 1);
  });

  it('shows Ether with USD and token balances', async () => {
    const funds = await accountFunds(deps, accountId);
    expect(funds.ether).toMatchObject({ balance: 10n * ETH, usd_balance: 20_000 });
    expect(funds.tokens.map((t) => [t.token.symbol, t.balance.balance])).toEqual([
      ['DSK', 1000n * ETH],
      ['SIX', 500_000_000n],
      ['UNS', 7n * ETH],
    ]);
  });

  it('sends Ether: decoded and re-hashed before signing, then broadcast, mined and in the history', async () => {
    const proposed = await proposeSend(deps, accountId, { to: bob, amount: 15n * 10n ** 17n });
    expect(proposed.state).toBe('proposed');
    const tx = decodeUnsignedEtherTx(bytesToHex(proposed.unsignedTx));
    expect(tx).toMatchObject({ value: 15n * 10n ** 17n, chainId: 31337n, gasLimit: 21_000n });
    expect(bytesToHex(tx.to)).toBe(bob.slice(2).toLowerCase());
    expect(await nonceOf(address)).toBe(0); // nothing sent before the person confirms

    const before = await weiOf(address);
    const sent = await confirmSend(deps, proposed.id);
    expect(sent.state).toBe('broadcast');
    expect(sent.reason).toBeNull(); // the service's txid is the hash of what was signed
    const receipt = await node.provider.getTransactionReceipt(sent.txid!);
    expect(receipt?.status).toBe(1);
    expect(await weiOf(bob)).toBe(15n * 10n ** 17n);
    expect(await weiOf(address)).toBe(before - 15n * 10n ** 17n - receipt!.gasUsed * receipt!.gasPrice);

    await dev.synced();
    expect((await refreshSend(deps, proposed.id)).state).toBe('confirmed');
    const history = await accountHistory(deps, accountId, { limit: 50, offset: 0 });
    expect(history.entries.find((e) => e.txid === sent.txid)).toMatchObject({ token: null, amount: -(15n * 10n ** 17n) });
    expect(history.entries.find((e) => e.token === null && e.amount === 10n * ETH)).toBeTruthy(); // the funding
  });

  it.each([
    ['18 decimals', () => dsk, 'DSK', 25n * 10n ** 17n],
    ['6 decimals', () => six, 'SIX', 7_250_000n],
  ])('sends a token with %s', async (_name, token, symbol, raw) => {
    const contract = token();
    const before = (await accountFunds(deps, accountId)).tokens.find((t) => t.token.symbol === symbol)!.balance.balance;
    const proposed = await proposeSend(deps, accountId, { to: carol, amount: raw, token: contract });
    const tx = decodeUnsignedEtherTx(bytesToHex(proposed.unsignedTx));
    expect(bytesToHex(tx.to)).toBe(contract.slice(2).toLowerCase());
    expect(bytesToHex(tx.data)).toBe(bytesToHex(erc20TransferData(hexToBytes(carol.slice(2)), raw)));
    const sent = await confirmSend(deps, proposed.id);
    expect((await node.provider.getTransactionReceipt(sent.txid!))?.status).toBe(1);
    await dev.synced();
    const after = (await accountFunds(deps, accountId)).tokens.find((t) => t.token.symbol === symbol)!.balance.balance;
    expect(after).toBe(before - raw);
    const history = await accountHistory(deps, accountId, { limit: 50, offset: 0 });
    expect(history.entries.find((e) => e.txid === sent.txid)).toMatchObject({ amount: -raw, token: { symbol } });
    expect((await refreshSend(deps, proposed.id)).state).toBe('confirmed');
  });

  describe('refusals: nothing is stored, signed or broadcast', () => {
    const refused = async (run: () => Promise<unknown>, message: RegExp, code = 'send_refused') => {
      const nonce = await nonceOf(address);
      const sends = store.accounts.sends(accountId).length;
      const err = await run().then(
        () => null,
        (e: unknown) => e,
      );
      tamper = null;
      expect(err).toBeInstanceOf(CoordinatorError);
      expect((err as CoordinatorError).code).toBe(code);
      expect((err as CoordinatorError).message).toMatch(message);
      expect(store.accounts.sends(accountId).length).toBe(sends);
      expect(await nonceOf(address)).toBe(nonce);
    };

    it('a service that pays someone else', async () => {
      tamper = rebuilt((tx) => ({ ...tx, to: hexToBytes(carol.slice(2)) }));
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: ETH }), new RegExp(`pays ${carol}, not ${bob}`));
    });

    it('a service that sends a different amount', async () => {
      tamper = rebuilt((tx) => ({ ...tx, value: tx.value * 2n }));
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: ETH }), /sends 2 ETH, not the 1 ETH asked/);
    });

    it('a service that builds for another chain', async () => {
      tamper = rebuilt((tx) => ({ ...tx, chainId: 1n }));
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: ETH }), /for chain 1, but this account is on chain 31337/);
    });

    it('a service whose hash to sign is not the hash of its transaction', async () => {
      tamper = (body) => ({ ...body, hash_to_sign: `0x${'ab'.repeat(32)}` });
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: ETH }), /hash to sign is 0xabab.*but the transaction it returned hashes to 0x/);
    });

    it('a token transfer redirected to someone else, or Ether with call data', async () => {
      tamper = rebuilt((tx) => ({ ...tx, data: erc20TransferData(hexToBytes(bob.slice(2)), 10n ** 18n) }));
      await refused(() => proposeSend(deps, accountId, { to: carol, amount: ETH, token: dsk }), new RegExp(`DSK transfer pays ${bob}, not ${carol}`));
      tamper = rebuilt((tx) => ({ ...tx, data: Uint8Array.of(1, 2, 3) }));
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: ETH }), /carries no call data/);
    });

    it('short funds, with the amounts named', async () => {
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: 100n * ETH }), /insufficient funds: the account holds 8\.\d+ ETH, less than the 100 ETH to send/, 'insufficient_funds');
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: 5000n * ETH, token: dsk }), /holds 997\.5 DSK, less than the 5000 DSK/, 'insufficient_funds');
      // Everything the account has leaves nothing for the fee.
      const all = (await accountFunds(deps, accountId)).ether.balance;
      const whole = all - (all % 10n ** 9n);
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: whole }), /plus up to 0\.\d+ ETH of fee \(21000 gas/, 'insufficient_funds');
    });

    it('an amount finer than the service takes', async () => {
      await refused(() => proposeSend(deps, accountId, { to: bob, amount: 1n }), /more than 9 decimals/, 'bad_amount');
    });
  });

  it('a signer holding another key is refused before anything reaches the service', async () => {
    const ledger = await createAccount({ ...deps, ledgerSigner: () => Promise.resolve(softwareEtherSigner(hexToBytes(OTHER_KEY.slice(2)))) }, {
      kind: 'ledger',
      name: 'Cold',
      address: Wallet.createRandom().address,
    });
    await fundEther(node, ledger.address, ETH);
    const withLedger = { ...deps, ledgerSigner: () => Promise.resolve(softwareEtherSigner(hexToBytes(OTHER_KEY.slice(2)))) };
    const proposed = await proposeSend(withLedger, ledger.id, { to: bob, amount: 10n ** 17n });
    await expect(confirmSend(withLedger, proposed.id)).rejects.toThrow(/the Ledger holds 0x.*, not this account's/);
    await expect(confirmSend(deps, proposed.id)).rejects.toThrow(/no Ledger support/);
    expect(store.accounts.send(proposed.id)?.state).toBe('proposed');
    expect(await nonceOf(ledger.address)).toBe(0);
  });

  it('a nonce used elsewhere since the proposal: the service refuses, the send is failed with its reason', async () => {
    const proposed = await proposeSend(deps, accountId, { to: bob, amount: 10n ** 16n });
    const wallet = HDNodeWallet.fromPhrase(WORDS, undefined, "m/44'/60'/0'/0/0").connect(node.provider);
    await (await wallet.sendTransaction({ to: carol, value: 1n })).wait();
    const nonce = await nonceOf(address);
    await expect(confirmSend(deps, proposed.id)).rejects.toThrow(/refused the signed send: nonce \d+ .* was used/);
    expect(store.accounts.send(proposed.id)).toMatchObject({ state: 'failed', reason: expect.stringMatching(/nonce/) });
    expect(await nonceOf(address)).toBe(nonce);
  });

  it('a software key this desk no longer keeps: refused, the proposal stays', async () => {
    const proposed = await proposeSend(deps, accountId, { to: bob, amount: 10n ** 16n });
    deps.secrets(accountId).clear();
    await expect(confirmSend(deps, proposed.id)).rejects.toThrow(/key of account "Operations" is not kept by this desk any more/);
    expect(store.accounts.send(proposed.id)?.state).toBe('proposed');
  });
});

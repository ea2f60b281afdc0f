// Endpoints 1-3 and 11-14 for ethereum against a real `hardhat node`: Ether, an 18-decimal
// OpenZeppelin ERC20 and a 6-decimal one; refusals broadcast nothing. And the extension
// GET /erc20/token/{contract}: each token's metadata as its contract answers eth_call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbiCoder, Contract, SigningKey, Wallet, computeAddress, getAddress, type InterfaceAbi } from 'ethers';
import { deploy, presetMinterPauser, sixDecimalsToken, startHardhat, type HardhatNode } from '../../test/hardhat-node.ts';
import { deployOddToken } from '../../../dev/chains/odd-tokens.ts';
import { startTestService, type TestService } from '../../test/http-service.ts';
import type { EvmBackend } from './evm-backend.ts';

let node: HardhatNode;
let t: TestService;
let t18: string;
let t6: string;
const alice = new SigningKey(Wallet.createRandom().privateKey);
const bob = new SigningKey(Wallet.createRandom().privateKey);
const A = computeAddress(alice);
const B = computeAddress(bob);
const GWEI = 10n ** 9n;

const erc20 = (address: string) =>
  new Contract(address, ['function transfer(address,uint256) returns (bool)', 'function mint(address,uint256)', 'function balanceOf(address) view returns (uint256)'] as InterfaceAbi, node.funder);

async function synced() {
  await (t.service.evm as EvmBackend).indexer.sync();
}

function q(params: Record<string, string | bigint | number>) {
  return new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

async function pay(kind: 'ethereum' | 'erc20', key: SigningKey, params: Record<string, string | bigint | number>) {
  const created = await t.request('POST', `/${kind}/create/?${q(params)}`);
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const { hash_to_sign } = created.json as { hash_to_sign: string };
  const sig = key.sign(hash_to_sign);
  return t.request('POST', `/${kind}/sign_and_send/?${q({ ...params, r: sig.r, s: sig.s.slice(2), v: sig.v })}`);
}

// Raw calls: ethers' provider caches identical reads for a moment.
async function nonceOf(address: string, tag = 'pending') {
  return Number(BigInt((await node.provider.send('eth_getTransactionCount', [address, tag])) as string));
}

beforeAll(async () => {
  node = await startHardhat();
  t18 = (await deploy(node, presetMinterPauser(), ['Eighteen', 'T18'])).address;
  t6 = (await deploy(node, sixDecimalsToken(), [10n ** 15n])).address;
  await (await node.funder.sendTransaction({ to: A, value: 10n ** 19n })).wait();
  await (await erc20(t18).getFunction('mint')(A, 1000n * 10n ** 18n)).wait();
  await (await erc20(t6).getFunction('transfer')(A, 1000n * 10n ** 6n)).wait();
  t = await startTestService({ coins: { ethereum: { network: 'regtest', backend: { type: 'evm-rpc', url: node.url, startHeight: 0, pollIntervalMs: 100 }, usdRate: 2000 } } });
}, 120_000);

afterAll(async () => {
  await t?.dispose();
  await node?.stop();
});

describe('ethereum against hardhat', () => {
  it('sends Ether: create, sign, sign_and_send, then balances and history of both sides', async () => {
    const sent = await pay('ethereum', alice, { from: A, to: B, amount: 1_500_000_000n }); // 1.5 ETH
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    const txid = (sent.json as { message: string }).message;
    expect((await node.provider.getTransactionReceipt(txid))?.status).toBe(1);
    const bal = await t.request('GET', `/address/balance/ethereum/${B}`);
    expect(bal.json).toMatchObject({ balance: 1_500_000_000n * GWEI, human_balance: 1.5, usd_balance: 3000, unconfirmed_balance: 0n });
    await synced();
    const hist = (await t.request('GET', `/v2/address/history/ethereum/${A},${B}`)).json as { total_txs: number; txs: { address: string; is_deposit: boolean; amount: bigint; txid: string; confirmations: number }[] };
    const ours = hist.txs.filter((x) => x.txid === txid);
    expect(ours).toHaveLength(2);
    expect(ours.find((x) => x.address === B)).toMatchObject({ is_deposit: true, amount: 1_500_000_000n * GWEI, confirmations: 1 });
    expect(ours.find((x) => x.address === A)).toMatchObject({ is_deposit: false, amount: 1_500_000_000n * GWEI });
  });

  it.each([
    ['18 decimals', () => t18, 18, 2_500_000_000n, 25n * 10n ** 17n],
    ['6 decimals', () => t6, 6, 7_000n, 7n],
  ])('sends a token with %s and shows balances and history', async (_name, token, decimals, amount, raw) => {
    const contract_id = token();
    const sent = await pay('erc20', alice, { from: A, to: B, amount, contract_id, decimal_places: decimals });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    const txid = (sent.json as { message: string }).message;
    const bal = await t.request('GET', `/address/balances/ethereum/${A},${B}?contract_id=${contract_id}&decimal_places=${decimals}`);
    expect(bal.status).toBe(200);
    const body = bal.json as { addresses: { address: string; balance: bigint; usd_balance: number; human_balance: number }[] };
    expect(body.addresses[1]).toMatchObject({ address: B, balance: raw, usd_balance: 0, human_balance: Number(raw) / 10 ** decimals });
    expect(body.addresses[0]!.balance).toBe(1000n * 10n ** BigInt(decimals) - raw);
    await synced();
    const hist = (await t.request('GET', `/address/history/ethereum/${B}?contract_id=${contract_id}&decimal_places=${decimals}`)).json as { total_txs: number; txs: { txid: string; amount: bigint; is_deposit: boolean }[] };
    expect(hist.total_txs).toBe(1);
    expect(hist.txs[0]).toMatchObject({ txid, amount: raw, is_deposit: true });
  });

  it('refuses bad requests with clear messages and broadcasts nothing', async () => {
    const before = await nonceOf(A);
    // signed by another key: the message names the signer
    const wrongKey = await pay('ethereum', bob, { from: A, to: B, amount: 1000n });
    expect(wrongKey.status).toBe(400);
    expect((wrongKey.json as { message: string }).message).toContain(B);
    expect(wrongKey.json).toMatchObject({ status_code: 400 });
    // too many digits for a 6-decimal token
    const frac = await t.request('POST', `/erc20/create/?${q({ from: A, to: B, amount: 7_001n, contract_id: t6, decimal_places: 6 })}`);
    expect(frac.status).toBe(400);
    expect((frac.json as { message: string }).message).toMatch(/amount.*multiple of 1000/);
    // invalid and mis-checksummed addresses
    const badTo = await t.request('POST', `/ethereum/create/?${q({ from: A, to: '0x1234', amount: 1 })}`);
    expect(badTo.status).toBe(400);
    expect((badTo.json as { message: string }).message).toContain('field "to"');
    const flipped = A.slice(0, -1) + (A.at(-1) === A.at(-1)!.toUpperCase() ? A.at(-1)!.toLowerCase() : A.at(-1)!.toUpperCase());
    const mixed = /[a-f]/i.test(A.at(-1)!) ? flipped : `${A.slice(0, 2)}${[...A.slice(2)].map((c, i) => (i === A.slice(2).search(/[a-fA-F]/) ? (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) : c)).join('')}`;
    expect(getAddress(mixed.toLowerCase())).toBe(A);
    const badSum = await t.request('POST', `/ethereum/create/?${q({ from: mixed, to: B, amount: 1 })}`);
    expect(badSum.status).toBe(400);
    expect((badSum.json as { message: string }).message).toMatch(/field "from".*EIP-55/);
    const badBal = await t.request('GET', `/address/balance/ethereum/${mixed}`);
    expect(badBal.status).toBe(400);
    // a contract_id with no code
    const notContract = await t.request('POST', `/erc20/create/?${q({ from: A, to: B, amount: 1_000n, contract_id: B, decimal_places: 18 })}`);
    expect(notContract.status).toBe(400);
    expect((notContract.json as { message: string }).message).toMatch(/contract_id.*not a contract/);
    expect(await nonceOf(A)).toBe(before);

    // a stale nonce: another transaction from A between create and sign_and_send
    const params = { from: A, to: B, amount: 3_000n };
    const created = (await t.request('POST', `/ethereum/create/?${q(params)}`)).json as { hash_to_sign: string };
    await (await new Wallet(alice, node.provider).sendTransaction({ to: B, value: 1n })).wait();
    const sig = alice.sign(created.hash_to_sign);
    const stale = await t.request('POST', `/ethereum/sign_and_send/?${q({ ...params, r: sig.r, s: sig.s, v: sig.v })}`);
    expect(stale.status).toBe(409);
    expect((stale.json as { message: string }).message).toMatch(/nonce .* used/);
    expect(await nonceOf(A)).toBe(before + 1);
    // and then nothing is pending for it
    const again = await t.request('POST', `/ethereum/sign_and_send/?${q({ ...params, r: sig.r, s: sig.s, v: sig.v })}`);
    expect(again.status).toBe(409);
  });

  it('reads a token\'s name, symbol and decimals from its contract; refuses what is no usable token', async () => {
    const info = async (contract: string, prefix = '') => {
      const res = await t.request('GET', `${prefix}/erc20/token/${contract}`);
      return { status: res.status, body: res.json as Record<string, unknown> };
    };
    // OpenZeppelin's ERC20s as deployed above, answered with the EIP-55 address, at the root and under /v2
    expect(await info(t18)).toEqual({ status: 200, body: { contract: getAddress(t18), name: 'Eighteen', symbol: 'T18', decimals: 18 } });
    expect(await info(getAddress(t6), '/v2')).toEqual({ status: 200, body: { contract: getAddress(t6), name: 'Six', symbol: 'SIX', decimals: 6 } });

    // an address nobody used, and an externally owned account with Ether and a nonce: no code, 400
    for (const address of [Wallet.createRandom().address, A]) {
      const r = await info(address);
      expect(r.status).toBe(400);
      expect(r.body['message']).toMatch(new RegExp(`^field "contract": ${address.toLowerCase()} is not a contract on this chain \\(it has no code\\)$`));
    }
    const typo = await info('0x1234');
    expect(typo.status).toBe(400);
    expect(typo.body['message']).toMatch(/field "contract".*not an Ethereum address/);

    // tokens that bend the optional metadata
    const mkr = await deployOddToken(node, 'Bytes32Metadata');
    expect((await info(mkr)).body).toEqual({ contract: getAddress(mkr), name: 'Maker', symbol: 'MKR', decimals: 18 });
    const bare = await deployOddToken(node, 'NoNameNoSymbol');
    expect((await info(bare)).body).toEqual({ contract: getAddress(bare), name: null, symbol: null, decimals: 2 });
    const disguised = await deployOddToken(node, 'Disguised'); // a right-to-left override and a zero-width space
    expect(AbiCoder.defaultAbiCoder().decode(['string'], await node.provider.call({ to: disguised, data: '0x06fdde03' }))[0]).toBe('Tether\u202eDSU');
    expect((await info(disguised)).body).toEqual({ contract: getAddress(disguised), name: null, symbol: null, decimals: 6 });
    const noDecimals = await deployOddToken(node, 'NoDecimals');
    const refused = await info(noDecimals);
    expect(refused.status).toBe(422);
    expect(refused.body['message']).toMatch(/refused the call decimals\(\) \(it reverted\).*not a usable ERC20 token/);
    const wide = await info(await deployOddToken(node, 'WideDecimals'));
    expect(wide.status).toBe(422);
    expect(wide.body['message']).toMatch(/answered decimals\(\) with 1000, not a uint8/);
  });

  it('pages the ERC20 history of an address with 1,000 transfers', async () => {
    const carol = Wallet.createRandom().address;
    const funder = await node.funder.getAddress();
    await (await erc20(t18).getFunction('mint')(funder, 10n ** 24n)).wait();
    await node.provider.send('evm_setAutomine', [false]);
    const token = erc20(t18);
    const sends = [];
    for (let i = 1; i <= 1000; i++) sends.push(await token.getFunction('transfer')(carol, BigInt(i), { gasLimit: 100_000n }));
    while ((await nonceOf(funder, 'latest')) < (await nonceOf(funder, 'pending'))) await node.provider.send('evm_mine', []);
    await node.provider.send('evm_setAutomine', [true]);
    await synced();
    const base = `/address/history/ethereum/${carol}?contract_id=${t18}&decimal_places=18`;
    const first = (await t.request('GET', `${base}&limit=1000`)).json as { total_txs: number; txs: { amount: bigint; is_deposit: boolean }[] };
    expect(first.total_txs).toBe(1000);
    expect(first.txs).toHaveLength(1000);
    expect(first.txs.reduce((s, x) => s + x.amount, 0n)).toBe(500_500n);
    expect(first.txs.every((x) => x.is_deposit)).toBe(true);
    const page = (await t.request('GET', `${base}&limit=100&offset=950`)).json as { total_txs: number; txs: unknown[] };
    expect(page.total_txs).toBe(1000);
    expect(page.txs).toHaveLength(50);
    const bal = (await t.request('GET', `/address/balance/ethereum/${carol}?contract_id=${t18}&decimal_places=18`)).json as { balance: bigint };
    expect(bal.balance).toBe(500_500n);
  }, 110_000);

  // Last: reverting the chain rewinds nonces that the signer helpers above may have cached.
  it('rolls back a transfer whose block is replaced (evm_revert, then another branch)', async () => {
    const dave = Wallet.createRandom().address;
    const snapshot = (await node.provider.send('evm_snapshot', [])) as string;
    await (await erc20(t6).getFunction('transfer')(dave, 42n)).wait();
    await synced();
    const base = `/address/history/ethereum/${dave}?contract_id=${t6}&decimal_places=6`;
    expect(((await t.request('GET', base)).json as { total_txs: number }).total_txs).toBe(1);

    await node.provider.send('evm_revert', [snapshot]); // the block with the transfer is gone
    await node.provider.send('hardhat_mine', ['0x3']); // and a longer branch without it
    await synced();
    const after = (await t.request('GET', base)).json as { total_txs: number };
    expect(after.total_txs).toBe(0);
    const bal = (await t.request('GET', `/address/balance/ethereum/${dave}?contract_id=${t6}&decimal_places=6`)).json as { balance: bigint };
    expect(bal.balance).toBe(0n);
  });

});

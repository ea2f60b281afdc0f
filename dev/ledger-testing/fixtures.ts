// A 2-of-3 wallet in a fresh store with one payment awaiting signatures, built offline (no
// service): the same rows proposePayment stores, with the hashes our own sighash computes. The
// first co-signer is "the Ledger": its keys sign the device's answers in the replayed exchanges.
// For zcash the transactions are v5 (NU5 and later) and the device's key is where the Zcash app
// derives it, m/44'/133'/0', stored with the unknown master fingerprint that app leaves. With a
// segwit script type the wallet pays to P2WSH / P2SH-P2WSH and the unsigned payment carries the
// witness script as its placeholder (shared/coins/unsigned-witness.ts), as the service makes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import {
  addressToScript,
  chainParams,
  encodeTx,
  hash160,
  hexToBytes,
  p2pkhScript,
  scriptToAddress,
  txidHex,
  type ChainParams,
  type CoinName,
  type NetworkName,
  type Tx,
  type UtxoCoinName,
} from '../../shared/coins/index.ts';
import { newTransparentTx, type BitcoinTx } from '../../shared/coins/tx.ts';
import { unsignedMiniscriptInput } from '../../shared/coins/assemble-miniscript.ts';
import { compileWshMiniscript } from '../../shared/coins/miniscript-spend.ts';
import type { VaultPolicy } from '../../shared/coins/vault-policy.ts';
import { vaultInputSpend } from '../../shared/coins/vault-spend.ts';
import { decayingVault, recoveryVault } from '../../shared/coins/vault-templates.ts';
import { isSegwitScriptType, type MultisigScriptType } from '../../shared/coins/multisig-script.ts';
import { unsignedWitnessInput } from '../../shared/coins/unsigned-witness.ts';
import { walletAddress } from '../../main/core/wallets/script.ts';
import type { CoordinatorApi } from '../../main/core/api.ts';
import { verifyUnsignedPayment, verifyUnsignedVaultPayment, type VerifiedInput } from '../../shared/files/unsigned-payment.ts';
import { openStore, type CoordinatorStore, type WalletRow } from '../../main/core/store/store.ts';
import { testCosigner, type TestCosigner } from '../desk-testing/keys.ts';
import type { CoreDeps } from '../../main/core/wallets/wallets.ts';

const bip32 = BIP32Factory(ecc);

export interface LedgerFixture {
  params: ChainParams;
  store: CoordinatorStore;
  deps: CoreDeps;
  wallet: WalletRow;
  cosigners: TestCosigner[];
  /** The device's master key (co-signer 0). */
  device: BIP32Interface;
  /** Co-signer 0's account path (the device signs input 0 at its /0/0). */
  deviceAccountPath: string;
  paymentId: string;
  prev: Tx;
  prevTx: Uint8Array;
  prevTxid: string;
  unsignedTx: Tx;
  /** The multisig script (the witness script of a segwit wallet). */
  redeemScript: Uint8Array;
  /** What the spent output (prev's output 1) pays to. */
  scriptPubKey: Uint8Array;
  hash: Uint8Array;
  /** What the service's raw-transaction endpoint was asked. */
  asked: string[];
}

const made: { store: CoordinatorStore; dir: string }[] = [];

/** Closes every fixture's store and removes its directory (call from afterEach). */
export function disposeLedgerFixtures(): void {
  for (const m of made.splice(0)) {
    m.store.close();
    rmSync(m.dir, { recursive: true, force: true });
  }
}

const bip32NetworkOf = (params: ChainParams) => ({ messagePrefix: '', bech32: '', bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! }, pubKeyHash: 0, scriptHash: 0, wif: params.wifVersion });

/** A desk store in its own temporary directory, closed and removed by disposeLedgerFixtures. */
function freshStore(): CoordinatorStore {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-ledger-'));
  const store = openStore(join(dir, 'desk.sqlite'));
  made.push({ store, dir });
  return store;
}

/** The service's raw-transaction endpoint serving `served` for any txid, recording what it was asked. */
function rawTransactionApi(served: Uint8Array, asked: string[]): CoordinatorApi {
  return {
    rawTransaction: (_coin: string, txid: string) => {
      asked.push(txid);
      return Promise.resolve({ txid, hex: Buffer.from(served).toString('hex') });
    },
  } as unknown as CoordinatorApi;
}

/** A fresh store holding the wallet, its co-signers and its 0/0 and 1/0 addresses. */
function storedWallet(params: ChainParams, wallet: WalletRow, cosigners: readonly TestCosigner[]) {
  const store = freshStore();
  store.insertWallet(
    wallet,
    cosigners.map((c, position) => ({ position, name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath })),
  );
  const xpubs = cosigners.map((c) => c.xpub);
  const receive = walletAddress(params, wallet, xpubs, false, 0);
  const change = walletAddress(params, wallet, xpubs, true, 0);
  store.insertAddresses(wallet.id, [receive, change]);
  return { store, xpubs, receive, change };
}

/** The fixtures' payment: 60 000 to `to` and 39 000 change from the 100 000 of the wallet's 0/0, as proposePayment stores it. */
function storePayment(store: CoordinatorStore, id: string, walletId: string, to: string, unsignedTx: Uint8Array, input: VerifiedInput): void {
  store.insertPayment({
    id,
    walletId,
    to,
    amount: 60_000n,
    minersFee: 1_000n,
    operatorFee: null,
    operatorAddress: null,
    unsignedTx,
    totalInputValue: 100_000n,
    inputs: [{ inputIndex: 0, amount: 100_000n, change: false, index: 0, redeemScript: input.redeemScript }],
    hashes: input.publicKeys.map((publicKey) => ({ inputIndex: 0, publicKey, hash: input.hash })),
  });
}

/** zcash: the Zcash app's account path; the others: the test keys' own (keys.ts). */
const defaultDevicePath = (coin: UtxoCoinName): string => (coin === 'zcash' ? "m/44'/133'/0'" : "m/45'/0'");

export function ledgerFixture(
  coin: UtxoCoinName,
  network: NetworkName,
  options: {
    walletName?: string;
    tamperPrevTx?: boolean;
    deviceAccountPath?: string;
    /** Reshapes the previous transaction (e.g. into a Dash special transaction) before it is hashed and served; its output 1 must stay the wallet's 100 000. */
    reshapePrev?: (prev: Tx) => Tx;
    /** Default p2sh with keys as given (the wallets made before segwit). */
    scriptType?: MultisigScriptType;
    sortKeys?: boolean;
  } = {},
): LedgerFixture {
  const params = chainParams(coin, network);
  const bip32Network = bip32NetworkOf(params);
  const cosigners = ['alice', 'bob', 'carol'].map((n) => testCosigner(n, params));
  const deviceAccountPath = options.deviceAccountPath ?? defaultDevicePath(coin);
  if (deviceAccountPath !== cosigners[0]!.derivationPath) {
    // The device's co-signer read at another account path; the Zcash app leaves its master fingerprint unknown.
    const account = bip32.fromBase58(cosigners[0]!.masterXprv, bip32Network).derivePath(deviceAccountPath);
    cosigners[0] = { ...cosigners[0]!, xpub: account.neutered().toBase58(), accountXprv: account.toBase58(), derivationPath: deviceAccountPath, fingerprint: coin === 'zcash' ? '00000000' : cosigners[0]!.fingerprint };
  }
  const wallet: WalletRow = { id: 'w-ledger', coin: coin as CoinName as UtxoCoinName, network, name: options.walletName ?? 'Treasury', m: 2, createdAt: '2026-01-01T00:00:00.000Z', scriptType: options.scriptType ?? 'p2sh', sortKeys: options.sortKeys ?? false, birthdayHeight: null, birthdaySource: null };
  const { store, xpubs, receive, change } = storedWallet(params, wallet, cosigners);

  // Zcash: v5 transactions at a height past the newest network upgrade (its branch id in the header).
  const height = (params.networkUpgrades.at(-1)?.activationHeight ?? 0) + 1_000;
  const txOf = (parts: Pick<Tx, 'inputs' | 'outputs'>): Tx => (params.txFormat === 'bitcoin' ? { version: 1, ...parts, locktime: 0 } : newTransparentTx(params, { ...parts, height }));
  const plainPrev = txOf({
    inputs: [{ prevTxid: new Uint8Array(32).fill(0x11), vout: 3, scriptSig: Uint8Array.of(0x51), sequence: 0xffffffff }],
    outputs: [
      { value: 5_000n, script: p2pkhScript(new Uint8Array(20).fill(0x22)) },
      { value: 100_000n, script: addressToScript(params, receive.address) },
    ],
  });
  const prev = options.reshapePrev ? options.reshapePrev(plainPrev) : plainPrev;
  const prevBytes = encodeTx(prev);
  const prevTxid = txidHex(prev);
  const to = scriptToAddress(params, p2pkhScript(hash160(Uint8Array.of(1, 2, 3))))!;
  const unsigned = txOf({
    inputs: [
      isSegwitScriptType(wallet.scriptType)
        ? { prevTxid: Buffer.from(prevTxid, 'hex'), vout: 1, ...unsignedWitnessInput(wallet.scriptType, receive.redeemScript), sequence: 0xffffffff }
        : { prevTxid: Buffer.from(prevTxid, 'hex'), vout: 1, scriptSig: receive.redeemScript, sequence: 0xffffffff },
    ],
    outputs: [
      { value: 60_000n, script: addressToScript(params, to) },
      { value: 39_000n, script: addressToScript(params, change.address) },
    ],
  });
  const txBytes = encodeTx(unsigned);
  const verified = verifyUnsignedPayment(params, 2, xpubs, txBytes, [{ amount: 100_000n, path: '0/0' }], [
    { address: to, amount: 60_000n, purpose: 'payment' },
    { address: change.address, amount: 39_000n, purpose: 'change' },
  ], 1_000n, 'mismatch', { scriptType: wallet.scriptType, sortKeys: wallet.sortKeys });
  const input = verified.inputs[0]!;
  storePayment(store, 'p-ledger', wallet.id, to, txBytes, input);
  const asked: string[] = [];
  const api = rawTransactionApi(options.tamperPrevTx ? Uint8Array.from([...prevBytes.subarray(0, -1), 1]) : prevBytes, asked);
  const device = bip32.fromBase58(cosigners[0]!.masterXprv, bip32Network);
  return {
    params,
    store,
    deps: { store, api, actor: 'treasurer' },
    wallet,
    cosigners,
    device,
    deviceAccountPath,
    paymentId: 'p-ledger',
    prev,
    prevTx: prevBytes,
    prevTxid,
    unsignedTx: unsigned,
    redeemScript: input.redeemScript,
    scriptPubKey: receive.scriptPubKey,
    hash: input.hash,
    asked,
  };
}

export interface VaultLedgerFixture {
  params: ChainParams;
  store: CoordinatorStore;
  deps: CoreDeps;
  wallet: WalletRow;
  shape: 'recovery' | 'decaying';
  policy: VaultPolicy;
  /** In key order: alice, bob, carol (2 of them now); recovery: dave, erin (1 of them after 144 blocks); decaying: 1 of alice, bob, carol after 144 blocks. */
  cosigners: TestCosigner[];
  /** The master key of the device's holder. */
  device: BIP32Interface;
  holder: TestCosigner;
  /** 0: the primary path; 144: the recovery path. */
  blocks: number;
  paymentId: string;
  prevTx: Uint8Array;
  prevTxid: string;
  unsignedTx: BitcoinTx;
  witnessScript: Uint8Array;
  scriptPubKey: Uint8Array;
  /** The stored BIP143 hash of input 0 and the keys it is stored for (the path's). */
  hash: Uint8Array;
  pathKeys: Uint8Array[];
}

/**
 * A miniscript vault (issue 27) in a fresh store, 2-of-3 (alice, bob, carol) now or after 144
 * blocks 1-of-2 recovery keys (dave, erin), or (decaying) 1 of the same three then, with one payment awaiting signatures that spends its
 * 0/0 coin on the path opening after `blocks`, as the service builds it (version 2, the path's
 * nSequence, the unsigned vault form) and with the hashes the desk's own check stores. The device
 * is `holder`'s Ledger. Default: bitcoin testnet (the Bitcoin app >= 2.1 signs miniscript).
 */
export function vaultLedgerFixture(blocks: 0 | 144, holder: string, options: { shape?: 'recovery' | 'decaying'; coin?: UtxoCoinName; network?: NetworkName } = {}): VaultLedgerFixture {
  const { shape = 'recovery', coin = 'bitcoin', network = 'testnet' } = options;
  const params = chainParams(coin, network);
  const cosigners = (shape === 'recovery' ? ['alice', 'bob', 'carol', 'dave', 'erin'] : ['alice', 'bob', 'carol']).map((n) => testCosigner(n, params));
  const key = (c: TestCosigner) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath });
  const primary = { threshold: 2, keys: cosigners.slice(0, 3).map(key) };
  const policy =
    shape === 'recovery'
      ? recoveryVault(params, primary, [{ threshold: 1, keys: cosigners.slice(3).map(key), after: { blocks: 144 } }])
      : decayingVault(params, primary, [{ threshold: 1, after: { blocks: 144 } }]);
  const wallet: WalletRow = { id: 'w-vault', coin, network, name: 'Treasury', m: 2, createdAt: '2026-01-01T00:00:00.000Z', scriptType: 'p2wsh', sortKeys: false, birthdayHeight: null, birthdaySource: null, kind: 'miniscript', vaultTemplate: policy.template };
  const { store, receive, change } = storedWallet(params, wallet, cosigners);

  const prev: BitcoinTx = {
    version: 1,
    inputs: [{ prevTxid: new Uint8Array(32).fill(0x11), vout: 3, scriptSig: Uint8Array.of(0x51), sequence: 0xffffffff }],
    outputs: [
      { value: 5_000n, script: p2pkhScript(new Uint8Array(20).fill(0x22)) },
      { value: 100_000n, script: receive.scriptPubKey },
    ],
    locktime: 0,
  };
  const prevTx = encodeTx(prev);
  const prevTxid = txidHex(prev);
  const spend = vaultInputSpend(params, policy, false, 0, blocks);
  const compiled = compileWshMiniscript(spend.descriptor.slice('wsh('.length, -1));
  const to = scriptToAddress(params, p2pkhScript(hash160(Uint8Array.of(1, 2, 3))))!;
  const unsigned: BitcoinTx = {
    version: 2,
    inputs: [{ prevTxid: hexToBytes(prevTxid), vout: 1, scriptSig: new Uint8Array(0), sequence: blocks > 0 ? blocks : 0xffffffff, witness: unsignedMiniscriptInput(compiled, spend.path.index).witness }],
    outputs: [
      { value: 60_000n, script: addressToScript(params, to) },
      { value: 39_000n, script: change.scriptPubKey },
    ],
    locktime: 0,
  };
  const txBytes = encodeTx(unsigned);
  const verified = verifyUnsignedVaultPayment(params, policy, blocks, txBytes, [{ amount: 100_000n, path: '0/0' }], [
    { address: to, amount: 60_000n, purpose: 'payment' },
    { address: change.address, amount: 39_000n, purpose: 'change' },
  ], 1_000n);
  const input = verified.inputs[0]!;
  storePayment(store, 'p-vault', wallet.id, to, txBytes, input);
  const who = cosigners.find((c) => c.name === holder);
  if (!who) throw new Error(`the fixture has no co-signer ${holder}`);
  return {
    params,
    store,
    deps: { store, api: rawTransactionApi(prevTx, []), actor: 'treasurer' },
    wallet,
    shape,
    policy,
    cosigners,
    device: bip32.fromBase58(who.masterXprv, bip32NetworkOf(params)),
    holder: who,
    blocks,
    paymentId: 'p-vault',
    prevTx,
    prevTxid,
    unsignedTx: unsigned,
    witnessScript: input.redeemScript,
    scriptPubKey: receive.scriptPubKey,
    hash: input.hash,
    pathKeys: input.publicKeys,
  };
}

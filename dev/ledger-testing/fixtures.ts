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
  p2pkhScript,
  scriptToAddress,
  txidHex,
  type ChainParams,
  type CoinName,
  type NetworkName,
  type Tx,
  type UtxoCoinName,
} from '../../shared/coins/index.ts';
import { newTransparentTx } from '../../shared/coins/tx.ts';
import { isSegwitScriptType, type MultisigScriptType } from '../../shared/coins/multisig-script.ts';
import { unsignedWitnessInput } from '../../shared/coins/unsigned-witness.ts';
import { walletAddress } from '../../main/core/wallet-script.ts';
import type { CoordinatorApi } from '../../main/core/api.ts';
import { verifyUnsignedPayment } from '../../shared/files/unsigned-payment.ts';
import { openStore, type CoordinatorStore, type WalletRow } from '../../main/core/store/store.ts';
import { testCosigner, type TestCosigner } from '../desk-testing/keys.ts';
import type { CoreDeps } from '../../main/core/wallets.ts';

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
  const bip32Network = { messagePrefix: '', bech32: '', bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! }, pubKeyHash: 0, scriptHash: 0, wif: params.wifVersion };
  const cosigners = ['alice', 'bob', 'carol'].map((n) => testCosigner(n, params));
  const deviceAccountPath = options.deviceAccountPath ?? defaultDevicePath(coin);
  if (deviceAccountPath !== cosigners[0]!.derivationPath) {
    // The device's co-signer read at another account path; the Zcash app leaves its master fingerprint unknown.
    const account = bip32.fromBase58(cosigners[0]!.masterXprv, bip32Network).derivePath(deviceAccountPath);
    cosigners[0] = { ...cosigners[0]!, xpub: account.neutered().toBase58(), accountXprv: account.toBase58(), derivationPath: deviceAccountPath, fingerprint: coin === 'zcash' ? '00000000' : cosigners[0]!.fingerprint };
  }
  const dir = mkdtempSync(join(tmpdir(), 'countersign-ledger-'));
  const store = openStore(join(dir, 'desk.sqlite'));
  made.push({ store, dir });
  const wallet: WalletRow = { id: 'w-ledger', coin: coin as CoinName as UtxoCoinName, network, name: options.walletName ?? 'Treasury', m: 2, createdAt: '2026-01-01T00:00:00.000Z', scriptType: options.scriptType ?? 'p2sh', sortKeys: options.sortKeys ?? false, birthdayHeight: null, birthdaySource: null };
  store.insertWallet(
    wallet,
    cosigners.map((c, position) => ({ position, name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath })),
  );
  const xpubs = cosigners.map((c) => c.xpub);
  const receive = walletAddress(params, wallet, xpubs, false, 0);
  const change = walletAddress(params, wallet, xpubs, true, 0);
  store.insertAddresses(wallet.id, [receive, change]);

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
  store.insertPayment({
    id: 'p-ledger',
    walletId: wallet.id,
    to,
    amount: 60_000n,
    minersFee: 1_000n,
    operatorFee: null,
    operatorAddress: null,
    unsignedTx: txBytes,
    totalInputValue: 100_000n,
    inputs: [{ inputIndex: 0, amount: 100_000n, change: false, index: 0, redeemScript: input.redeemScript }],
    hashes: input.publicKeys.map((publicKey) => ({ inputIndex: 0, publicKey, hash: input.hash })),
  });
  const asked: string[] = [];
  const served = options.tamperPrevTx ? Uint8Array.from([...prevBytes.subarray(0, -1), 1]) : prevBytes;
  const api = {
    rawTransaction: (_coin: string, txid: string) => {
      asked.push(txid);
      return Promise.resolve({ txid, hex: Buffer.from(served).toString('hex') });
    },
  } as unknown as CoordinatorApi;
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

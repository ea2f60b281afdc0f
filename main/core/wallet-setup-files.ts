// Wallet set-up files other multisig wallets read and write (docs/file-formats.md): BSMS records,
// output descriptors, Caravan and Coldcard files, in and out. The formats are pure codecs in
// shared/files; this module checks them against the chosen coin and network and creates the wallet.
import {
  addressToScript,
  chainParams,
  equalBytes,
  parseXpub,
  type ChainParams,
  type CoinName,
  type NetworkName,
} from '../../shared/coins/index.ts';
import { deriveAddress } from '../../shared/coins/multisig-address.ts';
import { formatBsmsDescriptorRecord, type BsmsKeyRecord } from '../../shared/files/bsms.ts';
import { caravanNetwork, formatCaravan } from '../../shared/files/caravan.ts';
import { formatColdcard } from '../../shared/files/coldcard.ts';
import { formatMultisigDescriptor } from '../../shared/files/descriptor.ts';
import { FileFormatError } from '../../shared/files/errors.ts';
import { checkSetup, type SetupKey, type WalletSetup } from '../../shared/files/setup.ts';
import { parseSetupFile } from '../../shared/files/setup-file.ts';
import { CoordinatorError } from './errors.ts';
import { fileSafe } from './file-names.ts';
import type { SignatureFileInput } from './signature-import.ts';
import type { WalletRow } from './store/store.ts';
import { refuseExistingWallet } from './wallet-identity.ts';
import { createWallet, requireWallet, walletParams, type CoreDeps, type NewWallet } from './wallets.ts';

export interface SetupChoice {
  /** Used when the file does not name its chain (only Caravan files do). */
  coin: CoinName;
  network: NetworkName;
  name?: string;
  /** Required for BSMS key records, which carry one key each and no policy. */
  m?: number;
}

export interface SetupRead {
  wallet: NewWallet;
  /** What was read, for the treasurer to review (formats, signed key records, the first-address check). */
  notes: string[];
}

const formatName: Record<WalletSetup['format'], string> = { descriptor: 'output descriptor', bsms: 'BSMS descriptor record', caravan: 'Caravan wallet file', coldcard: 'Coldcard/Electrum multisig file', specter: 'Specter wallet file' };

/**
 * Reads one wallet file, or several BSMS key records (one co-signer each, in the order given),
 * into a NewWallet; checks every key for the chosen coin and network, and a BSMS record's first
 * address against the one this desk derives. Throws CoordinatorError saying which file and why.
 */
export function readWalletSetup(files: readonly SignatureFileInput[], choice: SetupChoice): SetupRead {
  if (files.length === 0) throw new CoordinatorError('bad_input', 'choose a set-up file');
  const read = files.map((f) => {
    try {
      return { file: f.name, parsed: parseSetupFile(f.text) };
    } catch (err) {
      if (err instanceof FileFormatError) throw new CoordinatorError('malformed', `${f.name}: ${err.message}`);
      throw err;
    }
  });
  const walletFiles = read.flatMap((r) => (r.parsed.kind === 'wallet' ? [{ file: r.file, setup: r.parsed.setup }] : []));
  const keyRecords = read.flatMap((r) => (r.parsed.kind === 'key' ? [{ file: r.file, record: r.parsed.record }] : []));
  if (walletFiles.length > 1 || (walletFiles.length === 1 && keyRecords.length > 0)) {
    throw new CoordinatorError('bad_input', 'choose one wallet set-up file, or the BSMS key records of all co-signers (not both)');
  }
  let setup: WalletSetup;
  const notes: string[] = [];
  if (walletFiles.length === 1) {
    setup = walletFiles[0]!.setup;
    notes.push(`${walletFiles[0]!.file}: ${formatName[setup.format]}, ${setup.m} of ${setup.keys.length}`);
  } else {
    if (choice.m === undefined) throw new CoordinatorError('bad_input', 'BSMS key records carry one key each and no policy: say how many signatures are required');
    const keys = keyRecords.map((k) => k.record.key);
    try {
      setup = { format: 'bsms', name: null, m: choice.m, keys, keyNetwork: checkSetup(choice.m, keys), chain: null, firstAddress: null, scriptType: 'p2sh', sortKeys: false };
    } catch (err) {
      if (err instanceof FileFormatError) throw new CoordinatorError('malformed', err.message);
      throw err;
    }
    notes.push(...keyRecords.map((k: { file: string; record: BsmsKeyRecord }) => `${k.file}: BSMS key record of ${k.record.key.name}, ${k.record.signed ? 'signature verified' : 'unsigned'}`));
  }
  const coin = setup.chain?.coin ?? choice.coin;
  const network = setup.chain?.network ?? choice.network;
  let params: ChainParams;
  try {
    params = chainParams(coin, network);
  } catch (err) {
    throw new CoordinatorError('bad_input', err instanceof Error ? err.message : String(err));
  }
  for (const k of setup.keys) {
    try {
      parseXpub(params, k.xpub, `co-signer ${k.name}'s xpub`);
    } catch (err) {
      throw new CoordinatorError('bad_wallet', `${err instanceof Error ? err.message : String(err)} (choose the coin and network the file was made for)`);
    }
  }
  if (setup.firstAddress !== null) {
    const ours = deriveAddress(params, setup.m, setup.keys.map((k) => k.xpub), false, 0);
    let theirs: Uint8Array | null;
    try {
      theirs = addressToScript(params, setup.firstAddress);
    } catch {
      theirs = null;
    }
    if (!theirs || !equalBytes(theirs, addressToScript(params, ours.address))) {
      throw new CoordinatorError('tampered', `the record's first address ${setup.firstAddress} is not the first address ${ours.address} these keys give on ${coin} ${network}: the record was altered, or is for another coin or network`);
    }
    notes.push(`first address ${ours.address} matches the record`);
  }
  return {
    wallet: {
      coin: params.coin,
      network,
      name: choice.name?.trim() || setup.name || 'Imported wallet',
      m: setup.m,
      cosigners: setup.keys.map((k) => ({ name: k.name, xpub: k.xpub, fingerprint: k.fingerprint, derivationPath: k.derivationPath })),
    },
    notes,
  };
}

/** Reads a set-up file for the new-wallet form; one that describes a wallet this desk has is refused, naming it. */
export function readNewWalletSetup(deps: Pick<CoreDeps, 'store'>, files: readonly SignatureFileInput[], choice: SetupChoice): SetupRead {
  const read = readWalletSetup(files, choice);
  const { coin, network, m, cosigners } = read.wallet;
  refuseExistingWallet(deps.store, { params: chainParams(coin, network), m, xpubs: cosigners.map((c) => c.xpub) });
  return read;
}

/** Creates the wallet a set-up file describes (createWallet checks every address with the service). */
export async function importWalletSetup(deps: CoreDeps, files: readonly SignatureFileInput[], choice: SetupChoice): Promise<WalletRow> {
  const { wallet, notes } = readWalletSetup(files, choice);
  const created = await createWallet(deps, wallet);
  deps.store.audit(deps.actor, 'wallet.import_setup', `wallet ${created.id} from ${notes.join('; ')}`, files.map((f) => f.name).join(', '), { walletId: created.id });
  return created;
}

// ---- wallet set-up out ----------------------------------------------------------------------------

export type SetupExportFormat = 'bsms' | 'descriptor' | 'caravan' | 'coldcard';

/** The wallet as another wallet imports it; keys always in the wallet's order. */
export function exportWalletSetup(deps: Pick<CoreDeps, 'store'>, walletId: string, format: SetupExportFormat): { fileName: string; text: string } {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const keys: SetupKey[] = deps.store.cosigners(w.id).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }));
  const base = fileSafe(w.name);
  switch (format) {
    case 'descriptor':
      return { fileName: `${base}-descriptor.txt`, text: `${formatMultisigDescriptor(w.m, keys, '/<0;1>/*')}\n` };
    case 'bsms': {
      const first = deriveAddress(params, w.m, keys.map((k) => k.xpub), false, 0).address;
      return { fileName: `${base}.bsms`, text: formatBsmsDescriptorRecord(w.m, keys, first) };
    }
    case 'caravan': {
      const network = caravanNetwork(w.coin, w.network);
      if (network === null) throw new CoordinatorError('unsupported', `Caravan handles Bitcoin wallets only; export this ${w.coin} wallet as a BSMS record or a descriptor`);
      return { fileName: `${base}-caravan.json`, text: formatCaravan(w.name, network, w.m, keys) };
    }
    case 'coldcard':
      return { fileName: `${base}-multisig.txt`, text: formatColdcard(w.name, w.m, keys) };
  }
}

/**
 * Any wallet set-up file another wallet wrote, recognised by its shape: Caravan JSON, Specter
 * wallet JSON, a BSMS key or descriptor record, an output descriptor (one multipath line, or the
 * receive and change pair), or a Coldcard/Nunchuk/Electrum multisig text file.
 */
import { parseBsmsDescriptorRecord, parseBsmsKeyRecord, type BsmsKeyRecord } from './bsms.ts';
import { parseCaravan } from './caravan.ts';
import { looksLikeColdcard, parseColdcard } from './coldcard.ts';
import { parseMultisigDescriptor } from './descriptor.ts';
import { FileFormatError } from './errors.ts';
import { misplacedFile, recogniseFile } from './file-kind.ts';
import { SCRIPT_TYPE_LABEL, type WalletSetup } from './setup.ts';
import { looksLikeSpecter, parseSpecter } from './specter.ts';

export type SetupFile = { kind: 'wallet'; setup: WalletSetup } | { kind: 'key'; record: BsmsKeyRecord };

/**
 * Which wallets the caller can hold. 'any-multisig': every script type, sorted or not.
 * 'p2sh-multi': what the desk read before its wallets carried a script type and key order (P2SH;
 * descriptors with keys in the given order; Caravan and Coldcard P2SH files, whose sortKeys is
 * true): a wallet it cannot hold is refused instead of imported with other addresses.
 */
export type SetupReach = 'p2sh-multi' | 'any-multisig';

/** A descriptor file: /<0;1>/* or /0/* on one line, or /0/* and /1/* on two. */
export function parseDescriptorFile(text: string): WalletSetup {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('//'));
  if (lines.length === 0 || lines.length > 2) throw new FileFormatError(`a descriptor file holds one descriptor (or the receive and change pair), this one has ${lines.length} lines`);
  const ds = lines.map((l) => parseMultisigDescriptor(l));
  const receive = ds.find((d) => d.branches === '/<0;1>/*' || d.branches === '/0/*');
  if (!receive) throw new FileFormatError('the descriptor does not describe receive addresses (/0/* or /<0;1>/*)');
  if (ds.length === 2) {
    const change = ds.find((d) => d.branches === '/1/*');
    const keysOf = (d: typeof receive) => d.keys.map((k) => `${k.fingerprint}${k.derivationPath}${k.xpub}`).join();
    const same = change && change.m === receive.m && change.scriptType === receive.scriptType && change.sortKeys === receive.sortKeys && keysOf(change) === keysOf(receive);
    if (!same || receive.branches !== '/0/*') throw new FileFormatError('the two descriptors are not the receive (/0/*) and change (/1/*) descriptors of the same wallet (same script, threshold and keys)');
  }
  const { m, keys, keyNetwork, scriptType, sortKeys } = receive;
  return { format: 'descriptor', name: null, m, keys, keyNetwork, chain: null, firstAddress: null, scriptType, sortKeys };
}

function readWallet(body: string): SetupFile {
  if (body.startsWith('{')) {
    let json: unknown = null;
    try {
      json = JSON.parse(body);
    } catch {
      // parseCaravan says it is not JSON.
    }
    return { kind: 'wallet', setup: looksLikeSpecter(json) ? parseSpecter(body) : parseCaravan(body) };
  }
  if (body.startsWith('BSMS') || /^[0-9a-fA-F]{64,}$/.test(body)) {
    const second = body.split(/\r?\n/)[1]?.trim() ?? '';
    return /^([0-9a-fA-F]{2})+$/.test(second) ? { kind: 'key', record: parseBsmsKeyRecord(body) } : { kind: 'wallet', setup: parseBsmsDescriptorRecord(body) };
  }
  if (/^[a-z_]+\(/m.test(body) && !looksLikeColdcard(body)) return { kind: 'wallet', setup: parseDescriptorFile(body) };
  if (looksLikeColdcard(body)) return { kind: 'wallet', setup: parseColdcard(body) };
  throw new FileFormatError(
    'not a wallet set-up file this desk reads (a BSMS record, a multisig output descriptor, a Caravan or Specter wallet JSON, or a Coldcard/Nunchuk/Electrum multisig text file)',
  );
}

/** Refuses, in the words of the file's own format, a wallet the 'p2sh-multi' reach cannot hold. */
function requireP2shMulti(setup: WalletSetup): void {
  const until = 'until its wallets carry a script type';
  if (setup.scriptType !== 'p2sh') {
    const label = SCRIPT_TYPE_LABEL[setup.scriptType];
    if (setup.format === 'caravan') throw new FileFormatError(`not a usable Caravan wallet file: its address type ${label} is not P2SH (this desk makes P2SH multisig wallets ${until})`);
    if (setup.format === 'coldcard') throw new FileFormatError(`not a usable multisig set-up file: its format ${label} is not P2SH (this desk makes P2SH multisig wallets ${until})`);
    const written = setup.scriptType === 'p2wsh' ? 'wsh(...) is native segwit' : 'sh(wsh(...)) is nested segwit';
    throw new FileFormatError(`unsupported descriptor: ${written} (${label}); this desk makes P2SH multisig wallets ${until}`);
  }
  if (setup.sortKeys && setup.format !== 'caravan' && setup.format !== 'coldcard') {
    throw new FileFormatError("unsupported descriptor: sortedmulti sorts the keys (BIP67), and this desk keeps keys in the wallet's order (a different address set) until its wallets carry the key order");
  }
}

/** Reads any set-up file; `reach` says which wallets the caller can hold (see SetupReach). */
export function parseSetupFile(text: string, reach: SetupReach = 'p2sh-multi'): SetupFile {
  // A signature file, a PSBT or a labels file dropped here is named, with where it goes.
  const misplaced = misplacedFile(recogniseFile(text), 'wallet set-up file', ['wallet-setup', 'bsms-key', 'json', 'broken-json', 'text']);
  if (misplaced !== null) throw new FileFormatError(misplaced);
  const file = readWallet(text.replace(/^\uFEFF/, '').trim());
  if (file.kind === 'wallet' && reach === 'p2sh-multi') requireP2shMulti(file.setup);
  return file;
}

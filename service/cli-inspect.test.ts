// `countersign tx inspect` as a co-signer runs it: on a half-signed 2-of-3 litecoin payment, as
// text, as JSON, from standard input, and on bad input (exit 2, one line, no stack trace).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../shared/coins/bytes.ts';
import { chainParams } from '../shared/coins/coin-table.ts';
import { hash160 } from '../shared/coins/hash.ts';
import { buildPayment, multisigSource } from '../shared/coins/payment.ts';
import { compileScript, multisigRedeemScript, OP, p2pkhScript, p2shScript } from '../shared/coins/script.ts';
import { withHashType } from '../shared/coins/signature.ts';
import { encodeTx } from '../shared/coins/tx.ts';
import { testKey } from './test/keys.ts';

const root = new URL('..', import.meta.url).pathname;
const tsx = join(root, 'node_modules', '.bin', 'tsx');

function cli(args: string[], input?: string) {
  const r = spawnSync(tsx, ['service/cli.ts', 'tx', 'inspect', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000, ...(input === undefined ? {} : { input }) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const params = chainParams('litecoin', 'regtest');
const keys = ['x', 'y', 'z'].map((s) => testKey(`cli inspect ${s}`));
const redeem = multisigRedeemScript(2, keys.map((k) => k.publicKey));
const p2sh = p2shScript(hash160(redeem));
const built = buildPayment({
  params,
  sources: [multisigSource(redeem, p2sh, [{ txid: 'cd'.repeat(32), vout: 1, amount: 250_000_000n, scriptPubKey: p2sh }])],
  to: { script: p2pkhScript(hash160(testKey('cli inspect to').publicKey)), amount: 100_000_000n },
  minersFee: 20_000n,
  feePerKb: 1000n,
});
const hash = built.hashes[0]!.hash;
const sig = withHashType(hexToBytes(keys[2]!.sign(bytesToHex(hash))), params.hashType);
const halfSigned = bytesToHex(encodeTx({ ...built.tx, inputs: built.tx.inputs.map((i) => ({ ...i, scriptSig: compileScript([OP.OP_0, sig, redeem]) })) }));

function expectOneLineError(r: { status: number | null; stderr: string; stdout: string }, message: RegExp): void {
  expect(r.status).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('countersign tx inspect', () => {
  it('prints the report of a half-signed 2-of-3 payment', () => {
    const r = cli(['--coin', 'litecoin', '--network', 'regtest', '--amounts', '250000000', halfSigned]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('litecoin regtest transaction');
    expect(r.stdout).toContain('INCOMPLETE: input 0 has 1 of 2');
    expect(r.stdout).toContain(`hash to sign  ${bytesToHex(hash)}`);
    expect(r.stdout).toContain(`key 3  ${keys[2]!.publicKeyHex}  signed: valid (hash type 0x01)`);
    expect(r.stdout).toMatch(/fee\s+20000 units \(0\.0002 litecoin\)/);
  });

  it('prints JSON with --json: bigints as strings, bytes as hex', () => {
    const r = cli(['--coin', 'litecoin', '--network', 'regtest', '--amounts', '250000000', '--json', halfSigned]);
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout) as {
      complete: boolean;
      totals: { fee: { units: string; display: string } };
      inputs: { hashToSign: string; validSignatures: number; publicKeys: string[]; signatures: { publicKey: string; valid: boolean }[] }[];
    };
    expect(json.complete).toBe(false);
    expect(json.totals.fee).toEqual({ units: '20000', display: '0.0002 litecoin' });
    expect(json.inputs[0]?.hashToSign).toBe(bytesToHex(hash));
    expect(json.inputs[0]?.publicKeys).toEqual(keys.map((k) => k.publicKeyHex));
    expect(json.inputs[0]?.signatures).toEqual([expect.objectContaining({ publicKey: keys[2]!.publicKeyHex, valid: true })]);
  });

  it('reads the hex from standard input with -', () => {
    const r = cli(['--coin', 'litecoin', '--network', 'regtest', '-'], `${halfSigned.slice(0, 64)}\n${halfSigned.slice(64)}\n`);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('INCOMPLETE');
    expect(r.stdout).toMatch(/inputs\s+unknown \(amounts not given\)/);
  });

  it('refuses bad input with exit 2 and a one-line message', () => {
    expectOneLineError(cli(['--coin', 'dogecoin', halfSigned]), /unknown coin "dogecoin"/);
    expectOneLineError(cli([halfSigned]), /needs --coin/);
    expectOneLineError(cli(['--coin', 'litecoin', '--network', 'signet', halfSigned]), /unknown network "signet"/);
    expectOneLineError(cli(['--coin', 'litecoin', 'zz12']), /not valid hex/);
    expectOneLineError(cli(['--coin', 'litecoin', halfSigned.slice(0, -6)]), /not a valid litecoin transaction: transaction is truncated/);
    expectOneLineError(cli(['--coin', 'litecoin', '--amounts', '1.5', halfSigned]), /--amounts: "1\.5" is not a whole number/);
    expectOneLineError(cli(['--coin', 'litecoin', '--amounts', '1,2', halfSigned]), /2 input amount\(s\) given for a transaction with 1 input/);
    expectOneLineError(cli(['--coin', 'litecoin', '-'], ''), /no transaction given/);
  });
});

// Air-gapped co-signers by QR (issue 34), in Chromium over a real litecoind -regtest. The desk shows
// a 2-of-3 P2WSH payment's PSBT as animated UR and BBQr: every frame is screenshotted and read by an
// independent decoder (zxing-wasm) and must rebuild the PSBT the desk exports, byte for byte. Two
// test co-signers sign what they read (bitcoinjs-lib); each signed PSBT is written as the video a
// signer's screen would make and played to the desk through Chromium's fake camera: the first as UR
// at low density with frames missing and repeated (the fountain code finishes), the second as BBQr.
// The desk reads both through its camera path, checks them like PSBT files, submits and confirms.
// A video of the wallet's registration, where a signed PSBT is expected, is refused in words.
// Each co-signer's device is stored: with none said the PSBT dialog opens on UR; once carol's is a
// Coldcard (set on the wallet's page) it opens on BBQr, and the registration dialog on her Coldcard.
// Screenshots of the QR and scan dialogs at both densities go to e2e/artifacts/qr-*.png.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIP32Factory } from 'bip32';
import { Psbt } from 'bitcoinjs-lib';
import { chromium, type Page } from 'playwright-core';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, chainParams } from '../shared/coins/index.ts';
import { formatMultisigDescriptor } from '../shared/files/descriptor.ts';
import { decodePsbt, encodePsbt, withoutNonWitnessUtxos } from '../shared/files/psbt.ts';
import { readQrFrames } from '../shared/qr/read.ts';
import { parseXpubLike } from '../shared/files/xpub-bytes.ts';
import { CryptoAccount, CryptoCoinInfo, CryptoCoinInfoNetwork, CryptoCoinInfoType, CryptoHDKey, CryptoKeypath, CryptoOutput, PathComponent, ScriptExpressions } from '@keystonehq/bc-ur-registry';
import { psbtFrames, registrationFrames } from '../shared/qr/show.ts';
import { jsNetwork, testCosigner } from '../dev/desk-testing/keys.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, fundShownWallet, openDeskInBrowser, proposeOnScreen, type DeskInBrowser } from './browser.ts';
import { decodeScreenshot, fakeCameraArgs, writeQrVideo } from './qr-camera.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
/** The descriptor names no one: the desk calls each key "Key n (its fingerprint)". */
const keyName = (c: typeof alice, i: number) => `Key ${i + 1} (${c.fingerprint})`;
const bip32 = BIP32Factory(ecc);
const network = jsNetwork(params);

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let work: string;
let paymentRoute = '';
let shownPsbt: Uint8Array = new Uint8Array();
let exported: Uint8Array = new Uint8Array();
let walletId = '';
const shot = (name: string) => session.browser.shot(name);

beforeAll(async () => {
  session = await openDeskInBrowser({}, 'qr-');
  ({ desk, page } = session);
  work = session.browser.work;
}, 300_000);
afterAll(() => session?.close());

/** Every frame of the open QR dialog, paused and stepped, screenshotted and decoded independently. */
async function readShownFrames(): Promise<string[]> {
  const canvas = page.getByTestId('qr-canvas');
  await page.getByTestId('qr-play').click(); // pause
  const count = Number(await canvas.getAttribute('data-frames'));
  while (Number(await canvas.getAttribute('data-frame')) !== 0) await page.getByTestId('qr-next').click();
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    await expect.poll(() => canvas.getAttribute('data-frame')).toBe(String(i));
    const text = await decodeScreenshot(await canvas.screenshot());
    expect(text, `frame ${i + 1} of ${count} reads as a standard QR`).not.toBeNull();
    texts.push(text!);
    await page.getByTestId('qr-next').click();
  }
  await page.getByTestId('qr-play').click(); // play again
  return texts;
}

/** A second Chromium, its camera playing `video`, on the desk: `use` drives it. */
async function withCamera<T>(video: string, tag: string, use: (cam: Page) => Promise<T>): Promise<T> {
  const context = await chromium.launchPersistentContext(join(work, `camera-${tag}`), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [...CHROMIUM_ARGS, ...fakeCameraArgs(video)],
  });
  try {
    const cam = context.pages()[0] ?? (await context.newPage());
    cam.setDefaultTimeout(30_000);
    await cam.goto(desk.web.openUrl);
    await expect.poll(() => cam.getByTestId('service-status').textContent()).toMatch(/connected/);
    return await use(cam);
  } catch (err) {
    await context.pages()[0]?.screenshot({ path: join(ARTIFACTS, `qr-${tag}-failed.png`), fullPage: true });
    throw err;
  } finally {
    await context.close();
  }
}

/** Chromium with `video` as its camera, on the payment: scans, and returns the page for checks. */
async function scanWithCamera(video: string, tag: string, expectText: RegExp, midShot?: string, midStatus = /fragments|frame|Read whole|Refused/): Promise<string> {
  return withCamera(video, tag, async (cam) => {
    await cam.evaluate((route) => ((globalThis as unknown as { location: { hash: string } }).location.hash = route), paymentRoute);
    await cam.getByTestId('scan-psbt-qr').click();
    if (midShot) {
      // Caught while it reads: the progress bar of fragments.
      await expect.poll(() => cam.getByTestId('scan-status').textContent(), { timeout: 30_000 }).toMatch(midStatus);
      await cam.screenshot({ path: join(ARTIFACTS, `${midShot}.png`), fullPage: true });
      // Nothing more is coming: it stays unfinished, nothing imported.
      if (expectText.source === '^$') {
        await new Promise((r) => setTimeout(r, 2_000));
        expect(await cam.getByTestId('scan-status').textContent()).toMatch(midStatus);
        expect(await cam.getByTestId('import-results').count()).toBe(0);
        return '';
      }
    }
    let words = '';
    await expect
      .poll(
        async () => {
          words = (await cam.getByTestId('import-results').count()) ? ((await cam.getByTestId('import-results').textContent()) ?? '') : (await cam.getByTestId('scan-refused').count()) ? ((await cam.getByTestId('scan-refused').textContent()) ?? '') : '';
          return words;
        },
        { timeout: 60_000 },
      )
      .toMatch(expectText);
    await cam.screenshot({ path: join(ARTIFACTS, `qr-${tag}-done.png`), fullPage: true });
    return words;
  });
}

const sign = (psbt: Uint8Array, c: typeof alice): Uint8Array => new Uint8Array(Psbt.fromBuffer(Buffer.from(psbt), { network }).signAllInputsHD(bip32.fromBase58(c.masterXprv, network)).toBuffer());

describe('air-gapped co-signers by QR, in Chromium with a camera', () => {
  it('shows the PSBT as UR and BBQr at both densities: every frame, decoded independently, rebuilds it byte for byte', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    const descriptor = join(work, 'qr-treasury.txt');
    writeFileSync(descriptor, `${formatMultisigDescriptor(2, [alice, bob, carol], '/<0;1>/*', true, { scriptType: 'p2wsh', sortKeys: true })}\n`);
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('QR treasury');
    await page.getByTestId('import-setup').setInputFiles(descriptor);
    await expect.poll(() => page.getByTestId('setup-notes').textContent()).toMatch(/2 of 3/);
    await page.getByTestId('create-wallet').click();
    await fundShownWallet(page, desk, 2n * COIN, '2.00 LTC (regtest)');
    walletId = decodeURIComponent(/#\/wallets\/([^/]+)/.exec(page.url())![1]!);
    await proposeOnScreen(page, desk, { amount: '0.5', fee: '0.0002' });
    paymentRoute = new URL(page.url()).hash;
    exported = new Uint8Array(readFileSync(await session.browser.download(() => page.getByTestId('export-psbt').click(), 'payment.psbt')));
    // What the QR shows: the export without previous transactions (segwit: the witness UTXOs carry the amounts).
    shownPsbt = encodePsbt(withoutNonWitnessUtxos(decodePsbt(exported))!);

    // No co-signer's device is said yet: the dialog opens on UR, and says why.
    await page.getByTestId('show-psbt-qr').click();
    await expect.poll(() => page.getByTestId('qr-format-ur').isChecked()).toBe(true);
    await expect.poll(() => page.getByTestId('qr-preselected').textContent()).toBe("Preselected UR: no device is set for the co-signers still to sign (say each one's on the wallet's page).");
    for (const density of ['high', 'low'] as const) {
      await page.getByTestId(`qr-density-${density}`).check();
      await expect.poll(() => page.getByTestId('qr-status').textContent()).toMatch(/UR crypto-psbt/);
      await shot(`show-ur-${density}`);
      const texts = await readShownFrames();
      const read = readQrFrames(texts);
      expect(read.state === 'done' && read.payload.kind === 'psbt' && bytesToHex(read.payload.bytes)).toBe(bytesToHex(shownPsbt));
    }
    await page.getByTestId('qr-close').click();
    // Carol's signer is a Coldcard, said on the wallet's page (stored: the dialog asks no more). The
    // others are not said, and may not read BBQr: the dialog still opens on UR, and says why.
    const devicesSaid = async (said: readonly (string | null)[]) => {
      await page.evaluate((id) => ((globalThis as unknown as { location: { hash: string } }).location.hash = `#/wallets/${id}`), walletId);
      // Each one stored by the desk before the next is chosen (and before the reload, which would cut the call short).
      for (const [i, device] of said.entries()) {
        if (!device) continue;
        await page.getByTestId(`cosigner-device-${i}`).selectOption(device);
        await expect.poll(() => desk.store.cosigners(walletId)[i]?.device, { timeout: 30_000 }).toBe(device);
      }
      await page.reload();
      for (const [i, device] of said.entries()) await expect.poll(() => page.getByTestId(`cosigner-device-${i}`).inputValue(), { timeout: 30_000 }).toBe(device ?? '');
    };
    await devicesSaid([null, null, 'coldcard']);
    await page.evaluate((route) => ((globalThis as unknown as { location: { hash: string } }).location.hash = route), paymentRoute);
    await page.getByTestId('show-psbt-qr').click();
    await expect.poll(() => page.getByTestId('qr-preselected').textContent()).toBe(`Preselected UR: not every co-signer still to sign is said to use a Coldcard (${keyName(alice, 0)}: not said, ${keyName(bob, 1)}: not said, ${keyName(carol, 2)}: Coldcard).`);
    expect(await page.getByTestId('qr-format-ur').isChecked()).toBe(true);
    await page.getByTestId('qr-close').click();
    // Every co-signer's signer a Coldcard: the dialog opens on BBQr, and shows the PSBT whole (with
    // its previous transactions), as Coldcards ask.
    await devicesSaid(['coldcard', 'coldcard', 'coldcard']);
    await shot('cosigner-devices');
    await page.evaluate((route) => ((globalThis as unknown as { location: { hash: string } }).location.hash = route), paymentRoute);
    await page.getByTestId('show-psbt-qr').click();
    await expect.poll(() => page.getByTestId('qr-format-bbqr').isChecked()).toBe(true);
    // The descriptor named no one: the desk calls each key "Key n (its fingerprint)".
    await expect.poll(() => page.getByTestId('qr-preselected').textContent()).toBe(`Preselected BBQr: every co-signer still to sign uses a Coldcard (${keyName(alice, 0)}: Coldcard, ${keyName(bob, 1)}: Coldcard, ${keyName(carol, 2)}: Coldcard).`);
    // Both codes are still offered.
    expect(await page.getByTestId('qr-format-ur').isEnabled()).toBe(true);
    const whole = new Uint8Array(exported);
    for (const density of ['high', 'low'] as const) {
      await page.getByTestId(`qr-density-${density}`).check();
      await expect.poll(() => page.getByTestId('qr-status').textContent()).toMatch(/BBQr/);
      await shot(`show-bbqr-${density}`);
      const read = readQrFrames(await readShownFrames());
      expect(read.state === 'done' && read.payload.kind === 'psbt' && bytesToHex(read.payload.bytes)).toBe(bytesToHex(whole));
    }
    // The speed is the person's: 5 frames a second unless they change it.
    expect(await page.getByTestId('qr-fps').textContent()).toBe('5');
    await page.getByTestId('qr-close').click();
  }, 300_000);

  it("reads a signer's UR with frames missing and repeated through the camera, then a Coldcard's BBQr, and submits", async () => {
    expect(shownPsbt.length).toBeGreaterThan(0);
    // Alice's signer shows UR at low density; the camera misses pure fragments 2 and 4 and sees some twice.
    const urFrames = psbtFrames(sign(shownPsbt, alice), 'ur', 'low');
    const pure = urFrames.length / 3;
    expect(pure).toBeGreaterThan(4);
    const lossy = urFrames.filter((_, i) => i !== 1 && i !== 3);
    const video1 = join(work, 'alice-ur-low.y4m');
    writeQrVideo(video1, [lossy[0]!, lossy[0]!, lossy[1]!, ...lossy.slice(1)]);
    const first = await scanWithCamera(video1, 'scan-ur-low', /Imported camera \(ur:crypto-psbt\): 1 signature by/, 'qr-scan-low');
    expect(first).toMatch(/imported from the PSBT/);

    // Carol's Coldcard shows BBQr at high density.
    const video2 = join(work, 'carol-bbqr-high.y4m');
    writeQrVideo(video2, psbtFrames(sign(new Uint8Array(exported), carol), 'bbqr', 'high'));
    await scanWithCamera(video2, 'scan-bbqr-high', /Imported camera \(BBQr P\): 1 signature by/);

    await page.reload();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    await page.getByTestId('submit').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('broadcast');
    const txid = (await page.getByTestId('txid').textContent())!.trim();
    await desk.synced();
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('confirmed');
    expect((await desk.node.rpc.call<{ confirmations: number }>('getrawtransaction', [txid, true])).confirmations).toBe(1);
    await shot('confirmed');
  }, 300_000);

  it("refuses, in words, a camera showing a wallet's registration where a signed PSBT is expected", async () => {
    // The wallet registered on a Keystone: ur:bytes of its Coldcard-format file, read back whole.
    await page.evaluate((id) => ((globalThis as unknown as { location: { hash: string } }).location.hash = `#/wallets/${id}`), walletId);
    await page.getByTestId('register-qr').click();
    // Preselected from the device stored for carol; every device is still offered.
    expect(await page.getByTestId('qr-device').inputValue()).toBe('coldcard');
    expect(await page.getByTestId('qr-device-preselected').textContent()).toBe(`Preselected: ${keyName(alice, 0)}'s Coldcard, as said under Co-signers.`);
    await expect.poll(() => page.getByTestId('qr-status').textContent()).toMatch(/BBQr U \(Coldcard multisig file\)/);
    await page.getByTestId('qr-device').selectOption('keystone');
    await expect.poll(() => page.getByTestId('qr-status').textContent()).toMatch(/ur:bytes/);
    await shot('register-keystone');
    const registration = readQrFrames(await readShownFrames());
    expect(registration.state === 'done' && registration.payload).toMatchObject({ kind: 'registration', format: 'ur:bytes', text: expect.stringMatching(/Policy: 2 of 3[\s\S]*Format: P2WSH/) });
    // A SeedSigner takes the descriptor as text by default, or ur:crypto-output when asked.
    await page.getByTestId('qr-device').selectOption('seedsigner');
    await expect.poll(() => page.getByTestId('qr-status').textContent()).toMatch(/descriptor as text/);
    expect(await page.getByTestId('qr-code-text').isChecked()).toBe(true);
    await page.getByTestId('qr-code-crypto-output').check();
    await expect.poll(() => page.getByTestId('qr-status').textContent()).toMatch(/ur:crypto-output/);
    await shot('register-seedsigner-crypto-output');
    const output = readQrFrames(await readShownFrames());
    expect(output.state === 'done' && output.payload).toMatchObject({ kind: 'registration', format: 'ur:crypto-output', text: expect.stringMatching(/^wsh\(sortedmulti\(2,\[[0-9a-f]{8}\/45'\/0'\]tpub[^,]+\/0\/\*,/) });
    await page.getByTestId('qr-close').click();

    // A new payment to scan against.
    await page.evaluate((id) => ((globalThis as unknown as { location: { hash: string } }).location.hash = `#/wallets/${id}/pay`), walletId);
    await page.getByTestId('pay-to').fill(await desk.node.newAddress('legacy'));
    await page.getByTestId('pay-amount').fill('0.1');
    await page.getByTestId('fee-mode-fixed').check();
    await page.getByTestId('pay-fee').fill('0.0002');
    await page.getByTestId('propose').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
    paymentRoute = new URL(page.url()).hash;
    const coldcardText = 'Name: Other wallet\nPolicy: 2 of 2\nFormat: P2WSH\nDerivation: m/45h/0h\n\n' + [alice, bob].map((c) => `${c.fingerprint}: ${c.xpub}`).join('\n') + '\n';
    const r = registrationFrames({ kind: 'multisig', coldcardText, descriptor: '' }, 'keystone', 'high');
    const video = join(work, 'registration.y4m');
    writeQrVideo(video, r.ok ? r.frames : []);
    const words = await scanWithCamera(video, 'scan-refused', /Refused: the QR holds a wallet's registration/);
    expect(words).toMatch(/not a signed PSBT/);
    await page.reload();
    expect(await page.getByTestId('payment-state').getAttribute('data-state')).toBe('awaiting_signatures');
  }, 180_000);

  it('a truncated sequence (UR at high density, one fragment of several) stays unfinished and says how far it is', async () => {
    const frames = psbtFrames(sign(shownPsbt, bob), 'ur', 'high');
    expect(frames.length).toBeGreaterThan(1);
    const video = join(work, 'truncated-ur-high.y4m');
    writeQrVideo(video, [frames[0]!]);
    const words = await scanWithCamera(video, 'scan-truncated', /^$/, 'qr-scan-high', /1 of \d+ fragments \(ur:crypto-psbt\)/);
    expect(words).toBe('');
  }, 120_000);

  it("fills a co-signer's key from the camera: a signer's ur:crypto-account", async () => {
    const x = parseXpubLike(alice.xpub).bytes;
    const hdkey = new CryptoHDKey({
      isMaster: false,
      key: Buffer.from(x.slice(45, 78)),
      chainCode: Buffer.from(x.slice(13, 45)),
      useInfo: new CryptoCoinInfo(CryptoCoinInfoType.bitcoin, CryptoCoinInfoNetwork.testnet),
      origin: new CryptoKeypath([45, 0].map((index) => new PathComponent({ index, hardened: true })), Buffer.from(alice.fingerprint, 'hex')),
      parentFingerprint: Buffer.from(x.slice(5, 9)),
    });
    const account = new CryptoAccount(Buffer.from(alice.fingerprint, 'hex'), [new CryptoOutput([ScriptExpressions.WITNESS_SCRIPT_HASH], hdkey)]);
    const video = join(work, 'alice-account.y4m');
    writeQrVideo(video, [account.toUREncoder(1000).nextPart().toUpperCase()]);
    await withCamera(video, 'scan-key', async (cam) => {
      await cam.evaluate(() => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/wallets/new'));
      await cam.getByTestId('cosigner-scan-0').click();
      await expect.poll(() => cam.getByTestId('cosigner-xpub-0').inputValue(), { timeout: 30_000 }).toBe(alice.xpub);
      expect(await cam.getByTestId('cosigner-path-0').inputValue()).toBe("m/45'/0'");
      // A UR account does not say which device made it: the co-signer's device stays not said.
      expect(await cam.getByTestId('cosigner-device-0').inputValue()).toBe('');
      await cam.screenshot({ path: join(ARTIFACTS, 'qr-key-scanned.png'), fullPage: true });
    });
    // A Coldcard's multisig key export (its JSON, one plain QR) presets the co-signer's device to Coldcard.
    const coldcardJson = JSON.stringify({ xfp: bob.fingerprint.toUpperCase(), account: '0', p2wsh_deriv: bob.derivationPath, p2wsh: bob.xpub });
    const video2 = join(work, 'bob-coldcard-json.y4m');
    writeQrVideo(video2, [coldcardJson]);
    await withCamera(video2, 'scan-key-coldcard', async (cam) => {
      await cam.evaluate(() => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/wallets/new'));
      await cam.getByTestId('cosigner-scan-1').click();
      await expect.poll(() => cam.getByTestId('cosigner-xpub-1').inputValue(), { timeout: 30_000 }).toBe(bob.xpub);
      expect(await cam.getByTestId('cosigner-device-1').inputValue()).toBe('coldcard');
      await cam.screenshot({ path: join(ARTIFACTS, 'qr-key-scanned-coldcard.png'), fullPage: true });
    });
  }, 180_000);

  it('the built renderer opened from file://, as the packaged desk loads it, reads a QR through its decoder and fetches nothing', async () => {
    const dir = session.browser.rendererDir;
    // The decoder's WebAssembly rides in its lazily loaded chunk: the build has no .wasm file that
    // anything could fetch, and the main bundle carries none of it.
    const assets = readdirSync(join(dir, 'assets'));
    expect(assets.filter((f) => f.endsWith('.wasm'))).toEqual([]);
    expect(assets.filter((f) => /^qr-decoder-.*\.js$/.test(f))).toHaveLength(1);
    for (const f of assets.filter((a) => /^index-.*\.js$/.test(a))) expect(readFileSync(join(dir, 'assets', f), 'utf8')).not.toContain('data:application/wasm');

    const video = join(work, 'file-url-key.y4m');
    writeQrVideo(video, [`[${alice.fingerprint}/45h/0h]${alice.xpub}`]);
    // Electron lets its file:// page load the bundle's module scripts; plain Chromium needs this flag
    // for that. It would let fetch and XHR read files too, so every fetch and XHR is recorded, and none may happen.
    const context = await chromium.launchPersistentContext(join(work, 'camera-file-url'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: [...CHROMIUM_ARGS, ...fakeCameraArgs(video), '--allow-file-access-from-files'],
    });
    const errors: string[] = [];
    try {
      const cam = context.pages()[0] ?? (await context.newPage());
      cam.setDefaultTimeout(30_000);
      cam.on('pageerror', (e) => errors.push(e.message));
      // The bridge as Electron's preload gives it (one invoke function), carried to the desk's bridge by the test.
      await cam.exposeFunction('countersignInvoke', async (channel: string, input: unknown) => {
        const res = await fetch(`${desk.web.url}/bridge/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${desk.web.token}` }, body: JSON.stringify(input ?? {}) });
        return res.text();
      });
      await cam.addInitScript(() => {
        const w = globalThis as unknown as {
          fetched: string[];
          fetch: (...a: unknown[]) => Promise<unknown>;
          countersignInvoke: (c: string, i: unknown) => Promise<string>;
          countersign: unknown;
          XMLHttpRequest: { prototype: { open: (...a: unknown[]) => void } };
        };
        w.fetched = [];
        const realFetch = w.fetch.bind(w);
        w.fetch = (...a: unknown[]) => (w.fetched.push(`fetch ${String(a[0])}`), realFetch(...a));
        const open = w.XMLHttpRequest.prototype.open;
        w.XMLHttpRequest.prototype.open = function (this: unknown, ...a: unknown[]) {
          w.fetched.push(`xhr ${String(a[1])}`);
          open.apply(this, a);
        };
        w.countersign = { invoke: async (channel: string, input: unknown) => JSON.parse(await w.countersignInvoke(channel, input)) as unknown };
      });
      await cam.goto(`${pathToFileURL(join(dir, 'index.html')).href}#/wallets/new`);
      expect(cam.url()).toMatch(/^file:\/\/\//);
      await cam.getByTestId('cosigner-scan-0').click();
      await expect.poll(() => cam.getByTestId('cosigner-xpub-0').inputValue(), { timeout: 30_000 }).toBe(alice.xpub);
      expect(await cam.getByTestId('cosigner-path-0').inputValue()).toBe("m/45'/0'");
      expect(await cam.evaluate(() => (globalThis as unknown as { fetched: string[] }).fetched)).toEqual([]);
      expect(errors).toEqual([]);
      await cam.screenshot({ path: join(ARTIFACTS, 'qr-file-url-key-scanned.png'), fullPage: true });
    } catch (err) {
      await context.pages()[0]?.screenshot({ path: join(ARTIFACTS, 'qr-file-url-failed.png'), fullPage: true });
      throw new Error(`${err instanceof Error ? err.message : String(err)}; page errors: ${errors.join(' | ') || 'none'}`, { cause: err });
    } finally {
      await context.close();
    }
  }, 120_000);
});

// A file above the desk's limit (shared/api/file-limits.ts), picked or dropped in Chromium (web
// mode): refused by its size before it is read, in words that say the limit; the next file picked
// is read as usual. Screenshot: e2e/artifacts/large-file-refused.png.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../shared/api/file-limits.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const ROOT = join(import.meta.dirname, '..');
const TOO_LARGE = MAX_FILE_BYTES + 5_000_000;
const REFUSAL = (name: string) => `"${name}" is 30.2 MB, more than the 25.2 MB the desk reads: no signing request, signature file, PSBT or set-up file is that large (one of 1,000 inputs fits)`;

let session: DeskInBrowser;
let page: Page;

beforeAll(async () => {
  session = await openDeskInBrowser();
  page = session.page;
}, 300_000);
afterAll(() => session?.close());

describe('a file above the limit, in Chromium', () => {
  it('is refused by co-signer mode when picked or dropped, naming the limit; a request of the old version is then opened', async () => {
    await page.goto(session.desk.web.openUrl);
    await page.getByRole('link', { name: 'Co-signer mode' }).click();
    await page.getByTestId('request-file').setInputFiles({ name: 'huge-request.json', mimeType: 'application/json', buffer: Buffer.alloc(TOO_LARGE, 0x20) });
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 }).toBe(REFUSAL('huge-request.json'));
    await session.browser.shot('large-file-refused');

    // Dropped (the file made in the page, as a file manager hands it over).
    const transfer = await page.evaluateHandle((size) => {
      const { DataTransfer } = globalThis as unknown as { DataTransfer: new () => { items: { add(file: File): void } } };
      const t = new DataTransfer();
      t.items.add(new File([new Uint8Array(size)], 'dropped.psbt'));
      return t;
    }, TOO_LARGE);
    await page.getByTestId('request-file-zone').dispatchEvent('dragover', { dataTransfer: transfer });
    await page.getByTestId('request-file-zone').dispatchEvent('drop', { dataTransfer: transfer });
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 }).toBe(REFUSAL('dropped.psbt'));

    // A version 1 request (written before version 2) picked next is read and shown.
    await page.getByTestId('request-file').setInputFiles(join(ROOT, 'shared/files/fixtures/signing-request-v1.json'));
    await page.getByTestId('request-outputs').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('request-outputs').textContent()).toMatch(/0\.80? LTC \(regtest\)/);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(JSON.parse(readFileSync(join(ROOT, 'shared/files/fixtures/signing-request-v1.json'), 'utf8'))).toMatchObject({ version: 1 });
  }, 120_000);
});

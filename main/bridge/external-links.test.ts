// The allow-list of links the desktop app opens in the user's browser: only https pages under the
// documentation host or a configured block explorer; everything else refused with its reason.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPLORER_SETTING, explorerBaseUrls } from '../core/chains/explorer-settings.ts';
import { openStore } from '../core/store/store.ts';
import { decideExternalLink, DOCUMENTATION_BASE_URLS } from './external-links.ts';

const bases = ['https://explorer.example/ltc/', 'https://blockbook.example'];

describe('decideExternalLink', () => {
  it('opens https pages under an allowed base', () => {
    expect(decideExternalLink('https://explorer.example/ltc/tx/ab12', bases)).toEqual({ open: true, url: 'https://explorer.example/ltc/tx/ab12' });
    expect(decideExternalLink('https://explorer.example/ltc', bases)).toMatchObject({ open: true });
    expect(decideExternalLink('https://BLOCKBOOK.example/address/Q1?page=2#top', bases)).toEqual({ open: true, url: 'https://blockbook.example/address/Q1?page=2#top' });
  });

  it('refuses other hosts, paths beside the base, look-alike hosts and other ports', () => {
    expect(decideExternalLink('https://evil.example/', bases)).toEqual({ open: false, reason: 'evil.example is not the documentation host or a configured block explorer' });
    expect(decideExternalLink('https://explorer.example/ltcx/tx/ab', bases)).toMatchObject({ open: false });
    expect(decideExternalLink('https://explorer.example/btc/tx/ab', bases)).toMatchObject({ open: false });
    expect(decideExternalLink('https://explorer.example/ltc/../btc/tx', bases)).toMatchObject({ open: false }); // URL parsing resolves the dots first
    expect(decideExternalLink('https://blockbook.example.evil.example/', bases)).toMatchObject({ open: false });
    expect(decideExternalLink('https://blockbook.example:8443/', bases)).toMatchObject({ open: false });
  });

  it('refuses every scheme but https, credentials, and what is no URL', () => {
    expect(decideExternalLink('http://blockbook.example/', bases)).toMatchObject({ open: false, reason: 'only https links open outside the desk, not http:' });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://blockbook.example/share', 'ms-settings:', 'data:text/html,hi']) {
      expect(decideExternalLink(url, bases), url).toMatchObject({ open: false });
    }
    expect(decideExternalLink('https://user:pw@blockbook.example/', bases)).toMatchObject({ open: false, reason: 'links with credentials in them never open' });
    expect(decideExternalLink('not a url', bases)).toEqual({ open: false, reason: 'not a URL' });
  });

  it('allows nothing from a base that is not an https URL, nor from an empty list', () => {
    expect(decideExternalLink('http://plain.example/tx', ['http://plain.example/'])).toMatchObject({ open: false });
    expect(decideExternalLink('https://x.example/', ['not a url', ''])).toMatchObject({ open: false });
    expect(decideExternalLink('https://x.example/', [])).toMatchObject({ open: false });
    for (const base of DOCUMENTATION_BASE_URLS) expect(decideExternalLink(base, DOCUMENTATION_BASE_URLS)).toMatchObject({ open: true });
  });
});

describe('explorer base URLs from the settings', () => {
  it('are none by default, read from the settings table, and ignored (with the reason) when malformed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-explorers-'));
    const store = openStore(join(dir, 'desk.sqlite'));
    try {
      expect(explorerBaseUrls(store)).toEqual({ urls: [], problem: null });
      store.setSettings({ [EXPLORER_SETTING]: JSON.stringify(bases) });
      expect(explorerBaseUrls(store)).toEqual({ urls: bases, problem: null });
      store.setSettings({ [EXPLORER_SETTING]: JSON.stringify(['http://plain.example/']) });
      expect(explorerBaseUrls(store)).toEqual({ urls: [], problem: expect.stringMatching(/starts with https:\/\//) });
      store.setSettings({ [EXPLORER_SETTING]: '{nope' });
      expect(explorerBaseUrls(store)).toEqual({ urls: [], problem: 'the explorer_base_urls setting is not JSON' });
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The one permission the desk grants: the camera alone, to its own page (issue 34's QR scans).
import { describe, expect, it } from 'vitest';
import { cameraOnly } from './web-contents-guards.ts';

const own = 'file:///opt/countersign/renderer/index.html';

describe('cameraOnly', () => {
  it('grants the camera to the desk page, without the microphone', () => {
    expect(cameraOnly('media', { requestingUrl: `${own}#/payments/1`, mediaTypes: ['video'] }, own)).toBe(true);
  });
  it('refuses the microphone, screen capture, other permissions and other pages', () => {
    expect(cameraOnly('media', { requestingUrl: own, mediaTypes: ['video', 'audio'] }, own)).toBe(false);
    expect(cameraOnly('media', { requestingUrl: own, mediaTypes: ['audio'] }, own)).toBe(false);
    expect(cameraOnly('media', { requestingUrl: own, mediaTypes: [] }, own)).toBe(false);
    expect(cameraOnly('geolocation', { requestingUrl: own }, own)).toBe(false);
    expect(cameraOnly('media', { requestingUrl: 'https://example.com/', mediaTypes: ['video'] }, own)).toBe(false);
  });
});

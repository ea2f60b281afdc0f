// A signing-request or signature file that breaks its format is refused naming the field, in words
// (found by the hostile-service bench, issue 31: the schema's own jargon named no field).
import { describe, expect, it } from 'vitest';
import { parseFile, SigningRequestV1 } from './signing-files.ts';
import { SIGNING_REQUEST_FORMAT } from './file-kind.ts';

describe('parseFile', () => {
  it('names a field left out, and one of the wrong kind', () => {
    const missing = parseFile(SigningRequestV1, 'signing-request file', JSON.stringify({ format: SIGNING_REQUEST_FORMAT, version: 1 }), 'signing-request');
    expect(missing).toEqual({ ok: false, message: 'malformed signing-request file: request_id is missing' });
    const wrong = parseFile(SigningRequestV1, 'signing-request file', JSON.stringify({ format: SIGNING_REQUEST_FORMAT, version: 1, request_id: 7 }), 'signing-request');
    expect(wrong).toEqual({ ok: false, message: 'malformed signing-request file: request_id should be text' });
  });
});

// PostgreSQL arrays in the binary wire format (what array_send writes and array_recv reads), for
// the index's bulk statements. node-postgres sends a Buffer parameter as binary, so an array built
// here reaches the server as is: no hex text of every byte string made by the client, and none
// parsed back by the server (which took half the time of a 30,000-row insert as text arrays).
const OID = { bytea: 17, int8: 20, int4: 23, text: 25 } as const;

class ArrayWriter {
  private readonly buf: Buffer;
  private pos = 0;

  constructor(oid: number, count: number, hasNull: boolean, payload: number) {
    this.buf = Buffer.allocUnsafe((count === 0 ? 12 : 20) + 4 * count + payload);
    this.buf.writeInt32BE(count === 0 ? 0 : 1, 0); // dimensions
    this.buf.writeInt32BE(hasNull ? 1 : 0, 4);
    this.buf.writeInt32BE(oid, 8);
    this.pos = 12;
    if (count > 0) {
      this.buf.writeInt32BE(count, 12);
      this.buf.writeInt32BE(1, 16); // lower bound
      this.pos = 20;
    }
  }

  null(): void {
    this.pos = this.buf.writeInt32BE(-1, this.pos);
  }

  bytes(b: Uint8Array): void {
    this.pos = this.buf.writeInt32BE(b.length, this.pos);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  int4(v: number): void {
    this.pos = this.buf.writeInt32BE(4, this.pos);
    this.pos = this.buf.writeInt32BE(v, this.pos);
  }

  int8(v: bigint): void {
    this.pos = this.buf.writeInt32BE(8, this.pos);
    this.pos = this.buf.writeBigInt64BE(v, this.pos);
  }

  done(): Buffer {
    if (this.pos !== this.buf.length) throw new Error(`array encoding wrote ${this.pos} of ${this.buf.length} bytes`);
    return this.buf;
  }
}

/** A bytea[] (elements may be null). */
export function byteaArray(values: readonly (Uint8Array | null)[]): Buffer {
  let payload = 0;
  let hasNull = false;
  for (const v of values) {
    if (v === null) hasNull = true;
    else payload += v.length;
  }
  const w = new ArrayWriter(OID.bytea, values.length, hasNull, payload);
  for (const v of values) {
    if (v === null) w.null();
    else w.bytes(v);
  }
  return w.done();
}

/** A text[] of UTF-8 strings. */
export function textArray(values: readonly string[]): Buffer {
  return retag(byteaArray(values.map((v) => Buffer.from(v, 'utf8'))), OID.text);
}

/** An int4[] (elements may be null); a value outside int4 throws. */
export function int4Array(values: readonly (number | bigint | string | null)[]): Buffer {
  let nulls = 0;
  for (const v of values) if (v === null) nulls++;
  const w = new ArrayWriter(OID.int4, values.length, nulls > 0, (values.length - nulls) * 4);
  for (const v of values) {
    if (v === null) w.null();
    else w.int4(Number(v));
  }
  return w.done();
}

/** An int8[] (elements may be null); a value outside int8 throws. */
export function int8Array(values: readonly (number | bigint | string | null)[]): Buffer {
  let nulls = 0;
  for (const v of values) if (v === null) nulls++;
  const w = new ArrayWriter(OID.int8, values.length, nulls > 0, (values.length - nulls) * 8);
  for (const v of values) {
    if (v === null) w.null();
    else w.int8(BigInt(v));
  }
  return w.done();
}

function retag(array: Buffer, oid: number): Buffer {
  array.writeInt32BE(oid, 8);
  return array;
}

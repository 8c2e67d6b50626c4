/**
 * The few protobuf messages a scalar event file needs, encoded by hand (field
 * numbers from tensorflow/core/util/event.proto and framework/summary.proto):
 *   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
 *   Summary { repeated Value value = 1; }
 *   Value   { string tag = 1; oneof value { float simple_value = 2; HistogramProto histo = 5; } }
 *   HistogramProto { double min = 1; double max = 2; double num = 3; double sum = 4;
 *                    double sum_squares = 5; repeated double bucket_limit = 6 [packed];
 *                    repeated double bucket = 7 [packed]; }
 */

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  private key(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  varint(value: bigint): void {
    // int64 is encoded as its two's complement uint64 (negative steps take 10 bytes).
    let v = BigInt.asUintN(64, value);
    const bytes: number[] = [];
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) b |= 0x80;
      bytes.push(b);
    } while (v !== 0n);
    this.parts.push(Uint8Array.from(bytes));
  }

  double(field: number, value: number): void {
    this.key(field, WIRE_I64);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, value, true);
    this.parts.push(b);
  }

  float(field: number, value: number): void {
    this.key(field, WIRE_I32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.parts.push(b);
  }

  int64(field: number, value: number | bigint): void {
    this.key(field, WIRE_VARINT);
    this.varint(BigInt(value));
  }

  bytes(field: number, value: Uint8Array): void {
    this.key(field, WIRE_LEN);
    this.varint(BigInt(value.length));
    this.parts.push(value);
  }

  packedDoubles(field: number, values: readonly number[]): void {
    const b = new Uint8Array(8 * values.length);
    const view = new DataView(b.buffer);
    values.forEach((v, i) => view.setFloat64(8 * i, v, true));
    this.bytes(field, b);
  }

  string(field: number, value: string): void {
    this.bytes(field, new TextEncoder().encode(value));
  }

  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

export interface ScalarValue {
  tag: string;
  value: number;
}

/** A histogram as TensorBoard stores it: bucket i counts values in (limit[i−1], limit[i]]. */
export interface HistogramValue {
  tag: string;
  min: number;
  max: number;
  num: number;
  sum: number;
  sumSquares: number;
  bucketLimits: readonly number[];
  buckets: readonly number[];
}

export interface EventFields {
  wallTime: number;
  step?: number | bigint;
  fileVersion?: string;
  scalars?: readonly ScalarValue[];
  histograms?: readonly HistogramValue[];
}

/** Serialise one Event. Proto3 style: step 0 and an empty summary are left out. */
export function encodeEvent(event: EventFields): Uint8Array {
  const w = new ProtoWriter();
  w.double(1, event.wallTime);
  if (event.step !== undefined && BigInt(event.step) !== 0n) w.int64(2, event.step);
  if (event.fileVersion !== undefined) w.string(3, event.fileVersion);
  const scalars = event.scalars ?? [];
  const histograms = event.histograms ?? [];
  if (scalars.length + histograms.length > 0) {
    const summary = new ProtoWriter();
    for (const s of scalars) {
      const value = new ProtoWriter();
      value.string(1, s.tag);
      // Part of a oneof, so written even when it is 0.
      value.float(2, s.value);
      summary.bytes(1, value.finish());
    }
    for (const h of histograms) {
      const histo = new ProtoWriter();
      histo.double(1, h.min);
      histo.double(2, h.max);
      histo.double(3, h.num);
      histo.double(4, h.sum);
      histo.double(5, h.sumSquares);
      histo.packedDoubles(6, h.bucketLimits);
      histo.packedDoubles(7, h.buckets);
      const value = new ProtoWriter();
      value.string(1, h.tag);
      value.bytes(5, histo.finish());
      summary.bytes(1, value.finish());
    }
    w.bytes(5, summary.finish());
  }
  return w.finish();
}

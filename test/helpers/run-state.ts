/**
 * The final state of a run folder, minus what differs between any two runs of the same
 * command (timestamps, durations, cache provenance): what crash-resume and distributed
 * runs are compared on, byte for byte.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { readOutcomesArrow } from '../../src/metrics/outcome-arrow.js';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import type { OutcomeRow } from '../../src/metrics/outcome-row.js';
import { readTranscripts } from '../../src/core/run-files/transcripts.js';

/** Wall-clock and provenance fields: they differ between any two runs. */
function stripRow(r: OutcomeRow): string {
  const { latencyMs: _l, finishedAt: _f, extra, ...rest } = r;
  // cacheHits: a re-run episode may get its replies from the killed attempt's recording.
  const { cacheHits: _c, ...keep } = (extra ?? {}) as Record<string, unknown>;
  return JSON.stringify({ ...rest, extra: keep });
}

const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);

function stripMemory(m: Record<string, unknown>): string {
  const { createdAt: _c, updatedAt: _u, ...rest } = m;
  return JSON.stringify(rest);
}

/** TensorBoard records with each Event's wall_time (field 1) cut out, as hex. */
function tensorboard(dir: string): string[] {
  const files = readdirSync(join(dir, 'tb')).filter((f) => f.startsWith('events.out.tfevents'));
  expect(files).toHaveLength(1);
  const buf = readFileSync(join(dir, 'tb', files[0] as string));
  const out: string[] = [];
  for (let off = 0; off < buf.length; ) {
    const len = Number(buf.readBigUInt64LE(off));
    const event = buf.subarray(off + 12, off + 12 + len);
    off += 12 + len + 4;
    const kept: Buffer[] = [];
    for (let p = 0; p < event.length; ) {
      const start = p;
      let key = 0;
      for (let shift = 0; ; shift += 7) {
        const b = event[p++] as number;
        key |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
      const wire = key & 7;
      if (wire === 0) while ((event[p++] as number) >= 0x80);
      else if (wire === 1) p += 8;
      else if (wire === 5) p += 4;
      else if (wire === 2) {
        let n = 0;
        for (let shift = 0; ; shift += 7) {
          const b = event[p++] as number;
          n += (b & 0x7f) * 2 ** shift;
          if (b < 0x80) break;
        }
        p += n;
      } else throw new Error(`tfevents: wire type ${wire}`);
      if (key >> 3 !== 1) kept.push(event.subarray(start, p));
    }
    out.push(Buffer.concat(kept).toString('hex'));
  }
  return out;
}

/** A plug-in method's own snapshot, minus what it holds of commit times (`commit`'s `at` is the clock's). */
function withoutTimes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutTimes);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !['at', 'createdAt', 'updatedAt'].includes(k)).map(([k, x]) => [k, withoutTimes(x)]));
}

/** Everything the final state is made of, minus timestamps, durations and paths. */
export function finalState(dir: string): Record<string, unknown> {
  const rows = readOutcomeRows(join(dir, 'outcomes.jsonl'));
  expect(rows.truncatedTail).toBeUndefined();
  const ckpt = JSON.parse(readFileSync(join(dir, 'checkpoint.json'), 'utf8')) as Record<string, any>;
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Record<string, any>;
  return {
    outcomes: rows.rows.map(stripRow),
    arrow: readOutcomesArrow(join(dir, 'outcomes.arrow')).map(stripRow),
    // Multi-turn benchmarks only: a single-turn one writes no traces.jsonl.
    traces: existsSync(join(dir, 'traces.jsonl')) ? lines(join(dir, 'traces.jsonl')) : [],
    // Every model call of every episode, as sent and answered (not when or whether from the cache).
    transcripts: readTranscripts(dir).map((t) => ({ ...t, calls: t.calls.map(({ latencyMs: _l, cached: _c, ...call }) => call) })),
    metrics: readFileSync(join(dir, 'metrics.json'), 'utf8'),
    memories: lines(join(dir, 'memories.jsonl')).map((l) => stripMemory(JSON.parse(l))),
    checkpoint: {
      epochCompleted: ckpt.epochCompleted,
      validatedBeforeTraining: ckpt.validatedBeforeTraining,
      // The engine's state has records with timestamps; a plug-in method's is its own snapshot, kept whole.
      memory: Array.isArray(ckpt.memory?.records) ? { ...ckpt.memory, records: ckpt.memory.records.map(stripMemory) } : withoutTimes(ckpt.memory),
    },
    summary: { status: summary.status, epochsCompleted: summary.epochsCompleted, memory: summary.memory, metrics: summary.metrics },
    tensorboard: tensorboard(dir),
    // Nothing half-written or pending is left behind.
    leftovers: readdirSync(dir).filter((f) => f.includes('.tmp-') || f === 'journal.jsonl'),
  };
}

/** Where two states first differ (a readable failure instead of a diff of megabytes). */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    if (a === b) return undefined;
    const [x, y] = [String(a), String(b)];
    let i = 0;
    while (x[i] === y[i]) i++;
    return `${path} at char ${i}: …${x.slice(Math.max(0, i - 80), i + 120)} ≠ …${y.slice(Math.max(0, i - 80), i + 120)}`;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const k of keys) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`);
    if (d) return d;
  }
  return undefined;
}


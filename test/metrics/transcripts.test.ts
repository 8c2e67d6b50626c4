/**
 * The transcript files are gzip members appended per committed batch. A kill can tear
 * the last one; what decodes must still be read, and a resume must not append after
 * a torn member, or the file stops decoding from there on.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readTranscripts, TRANSCRIPT_PARTS_FILE, TRANSCRIPTS_FILE, TranscriptWriter } from '../../src/core/run-files/transcripts.js';
import type { Transcript } from '../../src/metrics/transcripts.js';
import { tempDir } from '../helpers/temp.js';

const transcript = (i: number): Transcript => ({
  id: `train/1/${i}`,
  taskId: `t${i}`,
  taskIndex: i,
  epoch: 1,
  phase: 'train',
  calls: [{ role: 'agent', messages: [{ role: 'system', content: 'shared system prompt' }, { role: 'user', content: `task ${i} ${'x'.repeat(3000)}` }], reply: `reply ${i}` }],
});

/** The first 60 bytes of a member: what a write cut by a kill leaves. */
const torn = (text: string): Buffer => gzipSync(text).subarray(0, 60);

/** Text that does not compress to almost nothing (a torn member must be torn). */
const noise = (n: number): string => Array.from({ length: n }, (_, i) => ((i * 7919) % 10007).toString(36)).join(' ');

describe('transcript files after a torn write', () => {
  it('a resume writes back what decodes before appending, so the file stays whole', () => {
    const dir = tempDir('memrl-transcripts-');
    new TranscriptWriter(dir).append([transcript(0), transcript(1)]);
    appendFileSync(join(dir, TRANSCRIPT_PARTS_FILE), torn(`${JSON.stringify({ h: 'a'.repeat(20), t: noise(4000) })}\n`));
    appendFileSync(join(dir, TRANSCRIPTS_FILE), torn(`${JSON.stringify({ ...transcript(9), note: noise(2000) })}\n`));
    for (const f of [TRANSCRIPT_PARTS_FILE, TRANSCRIPTS_FILE]) expect(() => gunzipSync(readFileSync(join(dir, f)))).toThrow();

    const resumed = new TranscriptWriter(dir);
    resumed.append([transcript(2)]);
    for (const f of [TRANSCRIPT_PARTS_FILE, TRANSCRIPTS_FILE]) expect(() => gunzipSync(readFileSync(join(dir, f)))).not.toThrow();
    expect(readTranscripts(dir)).toEqual([transcript(0), transcript(1), transcript(2)]);
  });

  it('a file already damaged in the middle (appended after a torn member) is read member by member, and the resume keeps what follows it', () => {
    const dir = tempDir('memrl-transcripts-');
    new TranscriptWriter(dir).append([transcript(0)]);
    // What an older memrl left: a torn member, then a whole one its resume appended.
    const parts = join(dir, TRANSCRIPT_PARTS_FILE);
    appendFileSync(parts, torn(`${JSON.stringify({ h: 'a'.repeat(20), t: noise(4000) })}\n`));
    appendFileSync(parts, gzipSync(`${JSON.stringify({ h: 'b'.repeat(20), t: 'a later part' })}\n`));
    expect(() => gunzipSync(readFileSync(parts))).toThrow();
    expect(readTranscripts(dir)).toEqual([transcript(0)]);

    new TranscriptWriter(dir).append([transcript(1)]);
    const text = gunzipSync(readFileSync(parts)).toString('utf8');
    expect(text).toContain('a later part');
    expect(readTranscripts(dir)).toEqual([transcript(0), transcript(1)]);
  });
});

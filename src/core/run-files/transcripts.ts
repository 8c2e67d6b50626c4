/**
 * transcripts.jsonl.gz and transcript-parts.jsonl.gz: every model call of every
 * episode (see src/metrics/transcripts.ts for what a transcript holds), one record per
 * outcome row. Stored compactly: message texts repeat across episodes (the system
 * prompt, the memories), so each distinct text is kept once in the parts file under
 * its hash and the records refer to it. Both files are gzip streams appended member by
 * member as batches commit (a multi-member gzip file reads as one stream).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { RecordedCall, Transcript } from '../../metrics/transcripts.js';
import { writeFileAtomic } from '../../util/fs.js';
import { parseRunFile, type Same } from './format.js';

export const TRANSCRIPTS_FILE = 'transcripts.jsonl.gz';
export const TRANSCRIPT_PARTS_FILE = 'transcript-parts.jsonl.gz';

const count = z.number().int().nonnegative();

const callFields = {
  role: z.enum(['agent', 'judge', 'memory']),
  purpose: z.string().optional(),
  error: z.string().optional(),
  model: z.string().optional(),
  usage: z.object({ promptTokens: count, completionTokens: count, totalTokens: count }).strict().optional(),
  cached: z.boolean().optional(),
  latencyMs: z.number().optional(),
};

const transcriptFields = {
  id: z.string(),
  taskId: z.string(),
  taskIndex: count,
  epoch: count,
  phase: z.string(),
  evaluatorOutput: z.unknown(),
  qUpdates: z.array(z.object({ memoryId: z.string(), before: z.number(), after: z.number() }).strict()).optional(),
};

/** A transcript as the runner hands it over (texts inline). */
export const TranscriptSchema = z
  .object({
    ...transcriptFields,
    calls: z.array(z.object({ ...callFields, messages: z.array(z.object({ role: z.string(), content: z.unknown() }).strict()), reply: z.string().optional() }).strict()),
  })
  .strict();

/** A record of transcripts.jsonl.gz: message contents and replies are part hashes. `json`: the content was not a string (image parts) and the part holds its JSON. */
export const StoredTranscriptSchema = z
  .object({
    ...transcriptFields,
    calls: z.array(
      z
        .object({ ...callFields, messages: z.array(z.object({ role: z.string(), part: z.string(), json: z.literal(true).optional() }).strict()), reply: z.string().optional() })
        .strict(),
    ),
  })
  .strict();

/** A line of transcript-parts.jsonl.gz: a text and its hash. */
export const TranscriptPartSchema = z.object({ h: z.string(), t: z.string() }).strict();

type StoredTranscript = z.infer<typeof StoredTranscriptSchema>;

// (zod reads an `unknown` field as optional: message contents are compared apart.)
type InlineCall = z.infer<typeof TranscriptSchema>['calls'][number];
const checks: [
  Same<Omit<z.infer<typeof TranscriptSchema>, 'calls'>, Omit<Transcript, 'calls'>>,
  Same<Omit<InlineCall, 'messages'>, Omit<RecordedCall, 'messages'>>,
  Same<keyof InlineCall['messages'][number], keyof RecordedCall['messages'][number]>,
] = [true, true, true];
void checks;

/** A line as written (validated, not rebuilt), or a RunFileError naming the file and what is wrong. */
function parsed<S extends z.ZodTypeAny>(schema: S, line: string, file: string): z.infer<S> {
  return parseRunFile(schema, JSON.parse(line), file);
}

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 20);

/** Appends transcripts to a run folder, each distinct text once. */
export class TranscriptWriter {
  private readonly known = new Set<string>();

  /**
   * Each file is read once. Records `keep` refuses go (a resume drops the epochs past its
   * checkpoint). A kill can cut the last member of either file short (a write torn at a
   * page boundary); appending after it would leave the torn member in the middle, and the
   * file would no longer decode from there on. So a file that changed or did not decode
   * whole is written back first, as one member of its lines.
   */
  constructor(
    private readonly dir: string,
    keep: (t: Pick<Transcript, 'epoch' | 'phase'>) => boolean = () => true,
  ) {
    const partsPath = join(dir, TRANSCRIPT_PARTS_FILE);
    const parts = readMembers(partsPath);
    // A line that is not a part or a record goes like a torn one: only a kill leaves such lines.
    const partLines = parts.lines.filter((l) => {
      const p = TranscriptPartSchema.safeParse(JSON.parse(l));
      if (p.success) this.known.add(p.data.h);
      return p.success;
    });
    if (parts.damaged || partLines.length < parts.lines.length) rewrite(partsPath, partLines);
    const recordsPath = join(dir, TRANSCRIPTS_FILE);
    const records = readMembers(recordsPath);
    const kept = records.lines.filter((l) => {
      const t = StoredTranscriptSchema.safeParse(JSON.parse(l));
      return t.success && keep(t.data);
    });
    if (records.damaged || kept.length < records.lines.length) rewrite(recordsPath, kept);
  }

  append(transcripts: readonly Transcript[]): void {
    if (transcripts.length === 0) return;
    const parts: string[] = [];
    const part = (text: string): string => {
      const h = hashOf(text);
      if (!this.known.has(h)) {
        this.known.add(h);
        parts.push(JSON.stringify({ h, t: text }));
      }
      return h;
    };
    const lines = transcripts.map((t) => {
      const stored: StoredTranscript = {
        ...t,
        calls: t.calls.map((c) => ({
          ...c,
          messages: c.messages.map((m) => (typeof m.content === 'string' ? { role: m.role, part: part(m.content) } : { role: m.role, part: part(JSON.stringify(m.content)), json: true as const })),
          ...(c.reply !== undefined ? { reply: part(c.reply) } : {}),
        })),
      };
      return JSON.stringify(stored);
    });
    // Parts first: a record never refers to a part that is not on disk.
    if (parts.length) appendFileSync(join(this.dir, TRANSCRIPT_PARTS_FILE), gzipSync(`${parts.join('\n')}\n`));
    appendFileSync(join(this.dir, TRANSCRIPTS_FILE), gzipSync(`${lines.join('\n')}\n`));
  }
}

/** Every transcript of a run folder, texts restored; [] for a run without them. */
export function readTranscripts(dir: string): Transcript[] {
  const path = join(dir, TRANSCRIPTS_FILE);
  if (!existsSync(path)) return [];
  const parts = readParts(dir);
  const text = (h: string): string => parts.get(h) ?? `<missing part ${h}>`;
  return readLines(path).map((l) => {
    const s = parsed(StoredTranscriptSchema, l, path);
    return {
      ...s,
      calls: s.calls.map((c) => ({
        ...c,
        messages: c.messages.map((m) => ({ role: m.role, content: m.json ? (JSON.parse(text(m.part)) as unknown) : text(m.part) })),
        ...(c.reply !== undefined ? { reply: text(c.reply) } : {}),
      })),
    };
  });
}

function readParts(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const path = join(dir, TRANSCRIPT_PARTS_FILE);
  for (const l of readLines(path)) {
    const p = parsed(TranscriptPartSchema, l, path);
    out.set(p.h, p.t);
  }
  return out;
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);
/** Z_SYNC_FLUSH: a member cut short gives what decodes instead of an error. */
const KEEP_WHAT_DECODES = { finishFlush: 2 };

/**
 * What decodes of a damaged multi-member gzip file, member by member. A member torn by
 * a kill gives what decodes of it; the members after it (appended by a resume of an
 * older memrl, which did not repair the tail first) are read whole. A member starts
 * with the gzip magic; the same bytes inside compressed data are rare, so a member that
 * does not decode up to the next magic is tried up to a few more before it counts as torn.
 */
function salvage(buf: Buffer): string {
  const starts: number[] = [];
  for (let i = buf.indexOf(GZIP_MAGIC); i >= 0; i = buf.indexOf(GZIP_MAGIC, i + 1)) starts.push(i);
  starts.push(buf.length);
  const decode = (from: number, to: number, opts = {}): string | undefined => {
    try {
      return gunzipSync(buf.subarray(from, to), opts).toString('utf8');
    } catch {
      return undefined;
    }
  };
  let text = '';
  let k = 0;
  while (k < starts.length - 1) {
    let next = -1;
    for (let j = k + 1; j < Math.min(starts.length, k + 5) && next < 0; j++) {
      const whole = decode(starts[k]!, starts[j]!);
      if (whole !== undefined) {
        text += whole;
        next = j;
      }
    }
    if (next < 0) {
      // Torn: what decodes, and a line break so its cut line stays apart from the next member's first.
      text += `${decode(starts[k]!, starts[k + 1]!, KEEP_WHAT_DECODES) ?? ''}\n`;
      next = k + 1;
    }
    k = next;
  }
  return text;
}

/** A multi-member gzip file of lines, written anew as one member (atomically). */
function rewrite(path: string, lines: readonly string[]): void {
  writeFileAtomic(path, lines.length ? gzipSync(`${lines.join('\n')}\n`) : new Uint8Array());
}

/** The lines of a multi-member gzip file; the line a torn member cut short is dropped. */
function readLines(path: string): string[] {
  return readMembers(path).lines;
}

/** The whole lines of a multi-member gzip file (none if it is missing), and whether it failed to decode whole. */
function readMembers(path: string): { lines: string[]; damaged: boolean } {
  if (!existsSync(path)) return { lines: [], damaged: false };
  const buf = readFileSync(path);
  if (buf.length === 0) return { lines: [], damaged: false };
  let text: string;
  let damaged = false;
  try {
    text = gunzipSync(buf).toString('utf8');
  } catch {
    text = salvage(buf);
    damaged = true;
  }
  const lines = text.split('\n').filter((l) => {
    if (!l.trim()) return false;
    try {
      JSON.parse(l);
      return true;
    } catch {
      return false;
    }
  });
  return { lines, damaged };
}

import { writeFileSync } from 'node:fs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { CompressionCodec } from 'hyparquet';
import pino from 'pino';
import type { EpisodeContext } from '../../src/core/index.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';

export const FIXTURES = 'test/fixtures/hle';
export const SNAPPY = `${FIXTURES}/hle_snappy.parquet`;
export const ZSTD = `${FIXTURES}/hle_zstd.parquet`;

export interface RawRow {
  id: string;
  question: string;
  answer: string;
  answer_type: string;
  category: string;
  image?: string;
}

/** A small HLE-like file with string columns; `drop` leaves a column out. */
export function writeHle(path: string, rows: RawRow[], opts: { drop?: string; codec?: CompressionCodec } = {}): void {
  const cols = ['id', 'question', 'answer', 'answer_type', 'category', 'image'].filter((c) => c !== opts.drop);
  const codec = opts.codec ?? 'SNAPPY';
  const buf = parquetWriteBuffer({
    codec,
    // An identity "compressor" makes a file whose codec the reader must refuse by name.
    compressors: codec === 'SNAPPY' || codec === 'UNCOMPRESSED' ? undefined : { [codec]: (b: Uint8Array) => b },
    columnData: cols.map((c) => ({ name: c, data: rows.map((r) => (r as unknown as Record<string, string | undefined>)[c] ?? ''), type: 'STRING' as const })),
  });
  writeFileSync(path, new Uint8Array(buf));
}

/** n questions per category, ids `<cat>-<i>`. */
export function manyRows(categories: string[], n: number): RawRow[] {
  return categories.flatMap((cat) =>
    Array.from({ length: n }, (_, i) => ({ id: `${cat}-${i}`, question: `Question ${i} about ${cat}?`, answer: String(i), answer_type: 'exactMatch', category: cat })),
  );
}

/** A ChatModel that answers with `reply(req)` and records requests. */
export function fakeModel(reply: (req: ChatRequest) => string | Error, label = 'fake'): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    label,
    simulated: false,
    requests,
    async chat(req: ChatRequest) {
      requests.push(req);
      const r = reply(req);
      if (r instanceof Error) throw r;
      return { text: r, usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, model: label, latencyMs: 0 };
    },
  };
}

export function ctxWith(model: ChatModel, judge: ChatModel | undefined, memories: EpisodeContext['memories'] = []): EpisodeContext {
  return { model, judge, memories, epoch: 1, phase: 'train', signal: new AbortController().signal, log: pino({ level: 'silent' }) };
}

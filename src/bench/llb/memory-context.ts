/**
 * The LLB memory context, laid out as the reference's
 * memrl/lifelongbench_eval/memory_context.py:format_llb_memory_context, in memrl's
 * wording (templates memory-*.md; a pack imported from a MemRL checkout gives the
 * reference's):
 * - the retrieved memories are split into successes and failures, each kept in
 *   retrieval order (memrl/run/llb_rl_runner.py:LLBRunner.process_retrieve_mems);
 * - a header, then per non-empty bucket a section banner and one item per memory,
 *   numbered by its place in the bucket: a memory whose content ends up empty is
 *   skipped and leaves a gap in the numbering;
 * - for db/os tasks, the environment's opening instructions are removed from a
 *   transcript (memrl/lifelongbench_eval/sanitize.py:sanitize_llb_env_preamble);
 * - a failure is cut where its failed trajectory starts ("failed approach:" in the
 *   reference's wording, any case);
 * - an optional word budget stops after the item that reaches it (the reference's
 *   runner never sets one).
 * Pieces are joined by a newline; the item template carries its own layout.
 */
import { loadTemplate, render } from '../../util/template.js';
import { pyLstrip, pyRstrip, pySplitWords, pyStrip } from '../../util/python/text.js';

export const LLB_PROMPT_DIR = 'src/bench/llb/prompts';

/** One retrieved memory as the builder sees it. */
export interface LlbMemoryItem {
  /** null/undefined: no content (skipped). */
  content: string | null | undefined;
  /** What the header names it (the reference: the memory's metadata.type, e.g. procedure / adjustment). */
  type: string;
}

export interface LlbMemoryBuckets<T> {
  successed?: T[];
  failed?: T[];
}

/** The reference's bucketing: successes and failures, each in retrieval order; empty buckets absent. */
export function bucketMemories<T>(records: readonly T[], isSuccess: (r: T) => boolean): LlbMemoryBuckets<T> {
  const successed = records.filter(isSuccess);
  const failed = records.filter((r) => !isSuccess(r));
  return { ...(successed.length ? { successed } : {}), ...(failed.length ? { failed } : {}) };
}

export interface LlbMemoryContextOptions {
  /** db/os tasks (also the reference's long names) get the environment preamble removed. */
  task: string;
  /** Stop once the items' words reach this; null/0 = no limit (the reference's runner: always none). */
  budgetWords?: number | null;
  /** A prompt pack's llb namespace. */
  promptDir?: string;
  /** Starts of environment preambles besides the reference's (sanitize.py), e.g. memrl's own. */
  preambleMarkers?: readonly string[];
  /** Where a failure's trajectory starts besides "failed approach:" (lower case), e.g. memrl's writer heading. */
  failureMarkers?: readonly string[];
}

export interface LlbMemoryContext {
  text: string;
  /** The first line of each item kept, in order. */
  headers: string[];
  /** The section banners, in order (trimmed). */
  sections: string[];
}

/**
 * The reference's recognisers of LLB's environment preambles (db, db variant, os):
 * fixed in its code (sanitize.py), kept here so memories written in its format are
 * cleaned the same way.
 */
export const REFERENCE_PREAMBLE_MARKERS = [
  'I will ask you a question',
  'help me operate a MySQL database',
  'I will provide you with a task to perform on a Linux (Ubuntu) system.',
] as const;

/** Where the reference cuts a failure memory (fixed in its code, matched in any case). */
export const REFERENCE_FAILURE_MARKER = 'failed approach:';

export function isDbOrOsTask(task: string): boolean {
  return ['db', 'db_bench', 'os', 'os_interaction'].includes(pyStrip(task).toLowerCase());
}

function cutPreambleAt(lines: string[], start: number, markers: readonly string[]): string[] {
  const isPreamble = (line: string): boolean => markers.some((m) => line.includes(m));
  if (start < 0 || start >= lines.length) return lines;
  if (!pyLstrip(lines[start] as string).startsWith('user:') || !isPreamble(lines[start] as string)) return lines;
  let to = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const line = pyLstrip(lines[i] as string);
    if ((line.startsWith('user:') && !isPreamble(line)) || line.startsWith('assistant:')) {
      to = i;
      break;
    }
  }
  return [...lines.slice(0, start), ...lines.slice(to)];
}

/** sanitize_llb_env_preamble: drop the `user: <preamble>` block up to the next user or assistant turn. */
export function removeEnvPreamble(text: string, markers: readonly string[] = REFERENCE_PREAMBLE_MARKERS): string {
  if (!text) return text;
  const lines = text.split('\n');
  const first = lines.findIndex((l) => pyStrip(l) !== '');
  if (first === -1) return '';
  const starts = (line: string): boolean => pyLstrip(line).startsWith('user:') && markers.some((m) => line.includes(m));
  if (starts(lines[first] as string)) return pyStrip(cutPreambleAt(lines, first, markers).join('\n'));
  const at = lines.findIndex(starts);
  return at === -1 ? text : pyStrip(cutPreambleAt(lines, at, markers).join('\n'));
}

/** Cut a failure where its trajectory starts (the first marker found, any case), trailing space removed. */
export function cutFailedTrajectory(content: string, markers: readonly string[] = [REFERENCE_FAILURE_MARKER]): string {
  if (!content) return content;
  const lower = content.toLowerCase();
  const hits = markers.map((m) => lower.indexOf(m)).filter((i) => i >= 0);
  return hits.length ? pyRstrip(content.slice(0, Math.min(...hits))) : content;
}

/** A template's exact text: these pieces carry the block's layout (leading and trailing newlines). */
function template(file: string, promptDir: string | undefined): { text: string; path: string } {
  return loadTemplate(LLB_PROMPT_DIR, file, promptDir);
}

/** The [Retrieved Memory Context]-style block for bucketed memories. */
export function formatLlbMemoryContext(buckets: LlbMemoryBuckets<LlbMemoryItem>, opts: LlbMemoryContextOptions): LlbMemoryContext {
  const sanitize = isDbOrOsTask(opts.task);
  const preamble = [...REFERENCE_PREAMBLE_MARKERS, ...(opts.preambleMarkers ?? [])];
  const failureMarkers = [REFERENCE_FAILURE_MARKER, ...(opts.failureMarkers ?? [])];
  const budget = opts.budgetWords ?? 0;
  const lines = [template('memory-header.md', opts.promptDir).text];
  const headers: string[] = [];
  const sections: string[] = [];
  let used = 0;
  const kinds = [
    { items: buckets.successed, banner: 'memory-success-section.md', item: 'memory-success-item.md', failure: false },
    { items: buckets.failed, banner: 'memory-failure-section.md', item: 'memory-failure-item.md', failure: true },
  ];
  for (const kind of kinds) {
    if (!kind.items?.length) continue;
    const banner = template(kind.banner, opts.promptDir).text;
    lines.push(banner);
    sections.push(banner.trim());
    const itemTemplate = template(kind.item, opts.promptDir);
    for (const [i, mem] of kind.items.entries()) {
      let content = mem.content;
      if (sanitize && content) content = removeEnvPreamble(content, preamble);
      if (kind.failure && content) content = cutFailedTrajectory(content, failureMarkers);
      if (!content) continue;
      const snippet = render(itemTemplate.text, { index: i + 1, type: mem.type, content }, itemTemplate.path);
      lines.push(snippet);
      headers.push(snippet.split('\n', 1)[0] as string);
      used += pySplitWords(snippet).length;
      if (budget && used >= budget) {
        // The reference returns at once inside the successes, and stops the failures.
        return { text: lines.join('\n'), headers, sections };
      }
    }
  }
  return { text: lines.join('\n'), headers, sections };
}

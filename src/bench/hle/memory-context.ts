/**
 * HLE's memory message, built the way MemRL's HLERunner._build_memory_context builds
 * it (the wording is ours, in prompts/memory-*.md):
 *
 *   <successes header>        memory-successes.md, as is; only when there are successes
 *   <memory>                  each memory's text, uncut, after an image line when it has images
 *   (blank line between memories and between the two sections)
 *   <failures header>         memory-failures.md, as is; only when there are failures
 *
 * The first `limit` memories are used (0 or negative: all), in their order; a memory
 * is a success when its `success` flag is truthy (a missing flag is a failure). The
 * result also lists the memories' ids and their image ids.
 */
import { loadTemplate, render } from '../../util/template.js';

export const HLE_PROMPT_DIR = 'src/bench/hle/prompts';

export interface HleMemoryRecord {
  /** Empty when it has no id. */
  id: string;
  content: string;
  success: boolean;
  /** Image ids of the memory's question ('' entries already dropped). */
  imageIds: readonly string[];
}

export interface HleMemoryContext {
  text: string;
  /** Ids of the memories used, in order. */
  retrievedIds: string[];
  /** Image ids of the memories used, each once. */
  imageIds: string[];
}

export function buildHleMemoryContext(records: readonly HleMemoryRecord[], limit: number, promptDir?: string): HleMemoryContext {
  if (records.length === 0) return { text: '', retrievedIds: [], imageIds: [] };
  const used = records.slice(0, Math.max(0, limit) || records.length);
  const retrievedIds: string[] = [];
  const imageIds = new Set<string>();
  const successes: string[] = [];
  const failures: string[] = [];
  for (const m of used) {
    if (m.id) retrievedIds.push(m.id);
    let content = m.content;
    if (m.imageIds.length > 0) {
      for (const id of m.imageIds) imageIds.add(id);
      const t = loadTemplate(HLE_PROMPT_DIR, 'memory-images.md', promptDir);
      content = render(t.text, { imageIds: m.imageIds.join(', '), content }, t.path);
    }
    (m.success ? successes : failures).push(content);
  }
  const sections: string[] = [];
  const section = (file: string, items: string[]): void => {
    if (items.length > 0) sections.push(loadTemplate(HLE_PROMPT_DIR, file, promptDir).text + items.join('\n\n'));
  };
  section('memory-successes.md', successes);
  section('memory-failures.md', failures);
  return { text: sections.join('\n\n'), retrievedIds, imageIds: [...imageIds] };
}

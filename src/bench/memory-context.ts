import { loadTemplate, render } from '../util/template.js';
import type { InjectedMemory } from '../core/index.js';

/**
 * Format injected memories as one prompt block, shared by the benchmarks.
 * `budgetChars` is split evenly across the memories (the reference's BCB
 * "memory budget" is such a rough character budget, default 2000). Undefined = no limit.
 */
export function formatMemoryBlock(
  memories: InjectedMemory[],
  opts: { templateDir: string; promptDir?: string; budgetChars?: number },
): string {
  if (memories.length === 0) return '';
  const item = loadTemplate(opts.templateDir, 'memory-item.md', opts.promptDir);
  const block = loadTemplate(opts.templateDir, 'memory.md', opts.promptDir);
  const perItem = opts.budgetChars === undefined ? Infinity : Math.floor(opts.budgetChars / memories.length);
  const items = memories.map((m, i) => {
    const content = m.content.length > perItem ? `${m.content.slice(0, perItem)}...` : m.content;
    return render(
      item.text,
      { index: i + 1, outcome: m.success ? 'success' : 'failure', taskId: m.taskId ?? 'unknown task', content },
      item.path,
    ).trimEnd();
  });
  return render(block.text, { memories: items.join('\n\n') }, block.path).trimEnd();
}

/**
 * BigCodeBench's fidelity targets (../shared/fidelity/bcb_extract_code.jsonl and
 * memctx_bcb.jsonl): memrl's extraction + syntax gate + sanitizer, and its memory
 * block, replayed on the reference's recorded inputs.
 */
import { FidelityInputError, type FidelityTarget } from '../../core/index.js';
import { packNamespace } from '../../util/template.js';
import { EXTRACT_SWITCH, extractCode, extractCodeReference } from './extract.js';
import { BcbMemoryOutcomeError, bcbMemoryShape, buildBcbMemoryContext, pyStr, type BcbMemoryRecord } from './memory-context.js';
import { prepareBcbCode } from './prepare.js';
import { pyLen, pyStrip, pyTruthy as truthy } from '../../util/python/text.js';
import { SANITIZE_SWITCH } from './switches.js';
import { isJsonObject } from '../../util/json.js';

const extractTarget: FidelityTarget = {
  name: 'bcb_extract_code',
  source: 'memrl/bigcodebench_eval/bcb_adapter.py:extract_code_from_response',
  compare: 'exact',
  switches: [EXTRACT_SWITCH, SANITIZE_SWITCH],
  async run(input, { fidelity }) {
    if (!isJsonObject(input) || !(input.reply === null || typeof input.reply === 'string')) throw new FidelityInputError('expected {"reply": string | null}');
    const reply = input.reply;
    const code = fidelity.memrl(EXTRACT_SWITCH) ? extractCode(reply ?? '') : extractCodeReference(reply);
    const prepared = await prepareBcbCode(code, { sanitize: fidelity.memrl(SANITIZE_SWITCH) });
    return { code: prepared.code, syntax_ok: prepared.syntaxOk };
  },
};

/** One recorded candidate as the reference's formatter reads it. */
function recordOf(c: unknown): BcbMemoryRecord {
  if (!isJsonObject(c)) throw new FidelityInputError('each selected memory is an object');
  // c.get("content", c.get("full_content", "")) or ""
  const raw = 'content' in c ? c.content : 'full_content' in c ? c.full_content : '';
  const meta = isJsonObject(c.metadata) ? c.metadata : {};
  return {
    content: truthy(raw) ? pyStr(raw) : '',
    outcome: 'outcome' in meta ? meta.outcome : 'unknown',
    taskId: 'task_id' in meta ? meta.task_id : '',
    task: truthy(c.memory_item) ? pyStr(c.memory_item) : '',
  };
}

function memoryInput(input: unknown): { records: BcbMemoryRecord[]; budget: number } {
  if (!isJsonObject(input) || !Array.isArray(input.selected) || typeof input.memory_budget_tokens !== 'number') {
    throw new FidelityInputError('expected {"selected": [...], "memory_budget_tokens": number}');
  }
  return { records: input.selected.map(recordOf), budget: input.memory_budget_tokens };
}

interface EntryFacts {
  index: number;
  kept: boolean;
  memory_type: string | null;
  truncated: boolean;
}

/**
 * The wording-free skeleton of a memory block: the budget and, per memory, whether it
 * was kept, how it was rewritten (as stored / success / failure), and whether it was
 * cut; per shown example its number, outcome label, task line, whether the task text
 * and the whole stored core are in it, and whether a cut kept exactly the per-entry cap.
 */
function memoryStructure(output: unknown, input: unknown): unknown {
  const { records } = memoryInput(input);
  if (!isJsonObject(output)) return { output };
  const facts = output.facts as { per_entry_cap: number; entries: EntryFacts[] } | null;
  const entries = facts?.entries.map((e) => {
    const rec = records[e.index - 1];
    const shape = rec ? bcbMemoryShape(rec.content, rec.outcome, rec.task) : { kind: 'skip' as const };
    const kind = e.memory_type === null ? null : shape.kind === 'as-is' && e.memory_type === shape.core.split('\n')[0] ? 'as-is' : /fail/i.test(e.memory_type) ? 'failure' : 'success';
    return { index: e.index, kept: e.kept, truncated: e.truncated, kind };
  });
  const skeleton = { cap: facts?.per_entry_cap ?? null, entries: entries ?? null };
  if ('raises' in output) return { raises: output.raises, ...skeleton };
  const text = String(output.text);
  const headers = (output.headers as string[]) ?? [];
  const starts: number[] = [];
  let from = 0;
  for (const h of headers) {
    const at = text.indexOf(h, from);
    starts.push(at);
    from = at < 0 ? from : at + h.length;
  }
  const examples = headers.map((h, i) => {
    const index = Number(/\d+/.exec(h)?.[0] ?? NaN);
    const rec = records[index - 1];
    const fact = facts?.entries[index - 1];
    if (!rec || !fact || (starts[i] ?? -1) < 0) return { index, found: false };
    const end = i + 1 < starts.length ? (starts[i + 1] as number) : text.length;
    let lines = text.slice((starts[i] as number) + h.length, end).replace(/^\n/, '').replace(/\n+$/, '').split('\n');
    const taskLine = truthy(rec.taskId) && (lines[0] ?? '').includes(pyStr(rec.taskId));
    if (taskLine) lines = lines.slice(1);
    const content = lines.join('\n');
    const shape = bcbMemoryShape(rec.content, rec.outcome, rec.task);
    const core = shape.kind === 'skip' ? '' : shape.core;
    const task = shape.kind === 'success' || shape.kind === 'failure' ? shape.task : '';
    return {
      index,
      label: typeof rec.outcome === 'string' && h.includes(rec.outcome.toUpperCase()),
      taskLine,
      task: fact.truncated ? null : task === '' || content.includes(task),
      core: fact.truncated ? null : content.includes(core),
      cut: fact.truncated ? content.endsWith('...') && pyLen(content) - 3 === facts?.per_entry_cap : null,
    };
  });
  return { ...skeleton, empty: text === '', examples, blockHeaderOnly: headers.length === 0 && pyStrip(text) !== '' };
}

const memoryTarget: FidelityTarget = {
  name: 'memctx_bcb',
  source: 'memrl/run/bcb_runner.py:BCBRunner._format_memory_context',
  compare: 'structure',
  switches: [],
  run(input, { promptDir }) {
    const { records, budget } = memoryInput(input);
    const dir = packNamespace(promptDir, 'bcb');
    try {
      const ctx = buildBcbMemoryContext(records, budget, dir);
      return { text: ctx.text, headers: ctx.headers, length: pyLen(ctx.text), facts: ctx.facts };
    } catch (err) {
      if (err instanceof BcbMemoryOutcomeError) return { raises: err.name, facts: (err as BcbMemoryOutcomeError & { facts: unknown }).facts };
      throw err;
    }
  },
  structure: memoryStructure,
};

export const bcbFidelityTargets: readonly FidelityTarget[] = [extractTarget, memoryTarget];

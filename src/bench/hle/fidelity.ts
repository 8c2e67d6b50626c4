/**
 * HLE's fidelity targets (../shared/fidelity/hle_judge.jsonl, hle_judge_prompt.jsonl,
 * memctx_hle.jsonl): memrl's verdict parsing, judge request and memory message,
 * replayed on the reference's recorded inputs.
 */
import { FidelityInputError, type FidelityTarget } from '../../core/index.js';
import { packNamespace } from '../../util/template.js';
import { JUDGE_DEFAULTS } from './config.js';
import { hleJudgeMessages } from './episode.js';
import { parseJudgeReply } from './judge.js';
import { parseJudgeReference, referenceVerdict } from './judge-reference.js';
import { buildHleMemoryContext, type HleMemoryRecord } from './memory-context.js';
import { pyLen, pyTruthy as truthy } from '../../util/python/text.js';
import { JUDGE_VERDICT_SWITCH } from './switches.js';
import { isJsonObject } from '../../util/json.js';


function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  return String(v);
}

// The recorded vectors all use gold '42' (see the file's header notes); an input may name its own.
const VECTOR_GOLD = '42';

const judgeTarget: FidelityTarget = {
  name: 'hle_judge',
  source: 'memrl/run/hle_runner.py:HLERunner._hle_judge',
  compare: 'exact',
  switches: [JUDGE_VERDICT_SWITCH],
  run(input, { fidelity }) {
    if (!isJsonObject(input) || !(input.judge_text === null || typeof input.judge_text === 'string') || typeof input.judge_raises !== 'boolean') {
      throw new FidelityInputError('expected {"judge_text": string | null, "judge_raises": boolean}');
    }
    const gold = typeof input.gold === 'string' ? input.gold : VECTOR_GOLD;
    const raw = input.judge_raises ? '' : input.judge_text;
    if (!fidelity.memrl(JUDGE_VERDICT_SWITCH)) {
      const result = parseJudgeReference(raw, gold);
      return { result, raw_judge: raw, correct: referenceVerdict(result) };
    }
    // memrl: a failed call or a reply without a clear yes/no is an error row.
    if (input.judge_raises) return { error: 'judge_call_failed' };
    const verdict = parseJudgeReply(raw ?? '');
    if (!verdict) return { error: 'judge_unparseable' };
    const result = { correct_answer: gold, model_answer: verdict.extractedFinalAnswer || null, reasoning: verdict.reasoning || null, correct: verdict.correct ? 'yes' : 'no', confidence: verdict.confidence ?? 0 };
    return { result, raw_judge: raw, correct: verdict.correct };
  },
};

const judgePromptTarget: FidelityTarget = {
  name: 'hle_judge_prompt',
  source: 'memrl/run/hle_runner.py:HLERunner._hle_judge',
  compare: 'structure',
  switches: [JUDGE_VERDICT_SWITCH],
  run(input, { fidelity, promptDir }) {
    if (!isJsonObject(input) || typeof input.question !== 'string' || typeof input.gold !== 'string' || !(input.solver_output === null || typeof input.solver_output === 'string')) {
      throw new FidelityInputError('expected {"question": string, "gold": string, "solver_output": string | null}');
    }
    // _evaluate_row passes `output or ""`: the raw solver reply, nothing extracted.
    const messages = hleJudgeMessages({ question: input.question, answer: input.gold }, input.solver_output ?? '', packNamespace(promptDir, 'hle'));
    const generate_kwargs = {
      temperature: JUDGE_DEFAULTS.temperature,
      max_tokens: JUDGE_DEFAULTS.maxTokens,
      ...(fidelity.memrl(JUDGE_VERDICT_SWITCH) ? { json_mode: true } : {}),
    };
    return { messages, generate_kwargs };
  },
  /** Roles, kwargs, and whether question, solver output and gold appear whole and in that order. */
  structure(output, input) {
    const o = output as { messages?: { role: string; content: string }[]; generate_kwargs?: unknown };
    const i = input as { question: string; gold: string; solver_output: string | null };
    const messages = o.messages ?? [];
    const content = messages.map((m) => m.content).join('\n');
    let at = 0;
    const inOrder = [i.question, i.solver_output ?? '', i.gold].every((piece) => {
      const found = content.indexOf(piece, at);
      if (found < 0) return false;
      at = found + piece.length;
      return true;
    });
    return { roles: messages.map((m) => m.role), kwargs: o.generate_kwargs, inputsInOrder: inOrder };
  },
};

function memoryInput(input: unknown): { records: HleMemoryRecord[]; limit: number } {
  if (!isJsonObject(input) || !Array.isArray(input.selected) || typeof input.limit !== 'number') throw new FidelityInputError('expected {"selected": [...], "limit": number}');
  const records = input.selected.map((m): HleMemoryRecord => {
    if (!isJsonObject(m)) throw new FidelityInputError('each selected memory is an object');
    const meta = isJsonObject(m.metadata) ? m.metadata : {};
    const id = truthy(m.memory_id) ? m.memory_id : truthy(m.id) ? m.id : '';
    const content = truthy(m.content) ? m.content : truthy(m.full_content) ? m.full_content : '';
    const ids = truthy(meta.image_ids) && Array.isArray(meta.image_ids) ? meta.image_ids : [];
    return { id: id === '' ? '' : pyStr(id), content: pyStr(content), success: truthy(meta.success), imageIds: ids.filter(truthy).map(pyStr) };
  });
  return { records, limit: input.limit };
}

/**
 * Reads a memory message back against the memories it should hold: each non-empty
 * group (successes, then failures) is one header line, then its memories whole, in
 * order, blank-line separated, a memory with images after one line naming them.
 */
function memoryStructure(output: unknown, input: unknown): unknown {
  const { records, limit } = memoryInput(input);
  const o = output as { text: string; retrieved_ids: string[]; image_ids: string[] };
  const used = records.slice(0, Math.max(0, limit) || records.length);
  const groups = [used.filter((r) => r.success), used.filter((r) => !r.success)];
  const text = o.text;
  let pos = 0;
  const expect = (piece: string): boolean => (text.startsWith(piece, pos) ? ((pos += piece.length), true) : false);
  const line = (): string | undefined => {
    const nl = text.indexOf('\n', pos);
    if (nl < 0) return undefined;
    const l = text.slice(pos, nl);
    pos = nl + 1;
    return l;
  };
  const shown: string[] = [];
  let ok = true;
  for (const [g, group] of groups.entries()) {
    if (!ok || group.length === 0) continue;
    if (shown.length > 0) ok = expect('\n\n');
    ok = ok && line() !== undefined;
    for (const [k, r] of group.entries()) {
      if (!ok) break;
      if (k > 0) ok = expect('\n\n');
      if (ok && r.imageIds.length > 0) {
        const l = line();
        let from = 0;
        ok = l !== undefined && r.imageIds.every((id) => ((from = l.indexOf(id, from)) >= 0 ? ((from += id.length), true) : false));
      }
      ok = ok && expect(r.content);
    }
    shown.push(g === 0 ? 'successes' : 'failures');
  }
  return { sections: shown, whole: ok && pos === text.length, retrieved_ids: o.retrieved_ids, image_ids: o.image_ids };
}

const memoryTarget: FidelityTarget = {
  name: 'memctx_hle',
  source: 'memrl/run/hle_runner.py:HLERunner._build_memory_context',
  compare: 'structure',
  switches: [],
  run(input, { promptDir }) {
    const { records, limit } = memoryInput(input);
    const ctx = buildHleMemoryContext(records, limit, packNamespace(promptDir, 'hle'));
    return { text: ctx.text, retrieved_ids: ctx.retrievedIds, image_ids: [...ctx.imageIds].sort(), length: pyLen(ctx.text) };
  },
  structure: memoryStructure,
};

export const hleFidelityTargets: readonly FidelityTarget[] = [judgeTarget, judgePromptTarget, memoryTarget];

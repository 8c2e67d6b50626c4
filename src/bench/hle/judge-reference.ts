/**
 * The HLE judge's verdict as MemRL's HLERunner._hle_judge reads it (switch
 * `hle.judge-verdict` at reference), reproduced exactly, odd cases included:
 *
 * 1. JSON first: the text from the first "{" to the last "}" (or the whole reply when
 *    there is none) must parse as JSON with a `.get` (an object); then
 *    `correct` is "yes" when the text of its value contains "yes" anywhere
 *    ("Yes, they match" and ["yes"] are yes, "true" is no), the answer is
 *    extracted_final_answer or else extracted_answer (falsy values skipped), and the
 *    confidence is Python's int() of the value (0 when that fails).
 * 2. Otherwise `key: value` text: the first "extracted_final_answer:" line, the first
 *    "correct: yes|no" (any case; "yesss" is yes, "**correct:** yes" is not found),
 *    the first "confidence: <digits>".
 * 3. Nothing found, an empty reply, or a failed judge call: "no".
 */
import { PY_WS, pyIgnoreCase, pyStrip, pyTruthy as truthy } from '../../util/python/text.js';

/** The dict _hle_judge returns, without raw_judge. */
export interface ReferenceJudgeResult {
  correct_answer: string;
  model_answer: unknown;
  reasoning: unknown;
  correct: string;
  confidence: number;
}

const OBJECT_SPAN = /\{[\s\S]*\}/;
const ANSWER_LINE = new RegExp(`${pyIgnoreCase('extracted_final_answer')}${PY_WS}*:${PY_WS}*([^\\n]+)`);
const CORRECT_LINE = new RegExp(`${pyIgnoreCase('correct')}${PY_WS}*:${PY_WS}*(${pyIgnoreCase('yes')}|${pyIgnoreCase('no')})`);
const CONFIDENCE_LINE = new RegExp(`${pyIgnoreCase('confidence')}${PY_WS}*:${PY_WS}*(\\d+)`);
const INT_TEXT = new RegExp(`^${PY_WS}*[+-]?\\d+(?:_\\d+)*${PY_WS}*$`);


/** Python's str() of a JSON value, close enough to test for a substring. */
function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
}

/** Python's int() of a JSON value; undefined where it raises. */
function pyInt(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) + 0 : undefined;
  if (typeof v === 'string' && INT_TEXT.test(v)) return Number(pyStrip(v).replace(/_/g, ''));
  return undefined;
}

export function parseJudgeReference(judgeText: string | null | undefined, gold: string): ReferenceJudgeResult {
  const result: ReferenceJudgeResult = { correct_answer: gold, model_answer: null, reasoning: null, correct: 'no', confidence: 0 };
  if (typeof judgeText !== 'string') return result; // re.search(None) raises in both tries
  let obj: unknown;
  try {
    const m = OBJECT_SPAN.exec(judgeText);
    obj = JSON.parse(m ? m[0] : judgeText);
  } catch {
    obj = undefined;
  }
  if (typeof obj === 'object' && obj !== null && !Array.isArray(obj)) {
    const o = obj as Record<string, unknown>;
    const answer = truthy(o.extracted_final_answer) ? o.extracted_final_answer : o.extracted_answer;
    result.model_answer = answer ?? null;
    result.reasoning = o.reasoning ?? null;
    result.correct = pyStrip(pyStr('correct' in o ? o.correct : 'no')).toLowerCase().includes('yes') ? 'yes' : 'no';
    result.confidence = pyInt('confidence' in o ? o.confidence : 0) ?? 0;
    return result;
  }
  const answer = ANSWER_LINE.exec(judgeText);
  if (answer) result.model_answer = pyStrip(answer[1] ?? '');
  const correct = CORRECT_LINE.exec(judgeText);
  if (correct) result.correct = pyStrip(correct[1] ?? '').toLowerCase();
  const confidence = CONFIDENCE_LINE.exec(judgeText);
  if (confidence) result.confidence = Number(confidence[1]);
  return result;
}

/** HLERunner._evaluate_row's flag: str(result["correct"]).lower() == "yes". */
export function referenceVerdict(result: ReferenceJudgeResult): boolean {
  return result.correct.toLowerCase() === 'yes';
}

import { describe, expect, it } from 'vitest';
import type { HleTask } from '../../src/bench/hle/dataset.js';
import { hleMessages, runHleEpisode } from '../../src/bench/hle/episode.js';
import { parseJudgeReply } from '../../src/bench/hle/judge.js';
import type { InjectedMemory } from '../../src/core/index.js';
import type { ContentPart } from '../../src/llm/types.js';
import { ctxWith, fakeModel } from './helpers.js';
import { settleEpisode } from '../../src/runner/episode-outcome.js';
import { makeFidelity } from '../../src/util/fidelity.js';
import { HLE_SWITCHES, JUDGE_VERDICT_SWITCH } from '../../src/bench/hle/switches.js';

/** hle.judge-verdict at memrl's setting: JSON mode, strict verdicts, unreadable = error row. */
const STRICT_JUDGE = makeFidelity('reference', HLE_SWITCHES, { [JUDGE_VERDICT_SWITCH]: 'memrl' });

const IMG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const IMG2 = 'data:image/png;base64,AAAA';
const mc: HleTask = { id: 'q1', key: 'Which? A. x B. y', question: 'Which? A. x B. y', answer: 'B', answerType: 'multipleChoice', category: 'Math', image: IMG };
const em: HleTask = { id: 'q2', key: 'How many?', question: 'How many?', answer: '42', answerType: 'exactMatch', category: 'Other' };
const mem = (id: string, success: boolean, taskId: string, content: string): InjectedMemory => ({ id, key: 'k', success, taskId, content, q: 0, sim: 1 });

describe('parseJudgeReply', () => {
  it('reads the JSON object, also inside a code fence or chatter', () => {
    const v = parseJudgeReply('Sure:\n```json\n{"extracted_final_answer": "B", "reasoning": "matches {exactly}", "correct": "yes", "confidence": 90}\n```');
    expect(v).toEqual({ extractedFinalAnswer: 'B', reasoning: 'matches {exactly}', correct: true, confidence: 90, format: 'json' });
    expect(parseJudgeReply('{"extracted_final_answer":"7","correct":false}')).toMatchObject({ correct: false, extractedFinalAnswer: '7' });
  });

  it('falls back to key: value lines (bold keys, multi-line reasoning)', () => {
    const v = parseJudgeReply('**extracted_final_answer:** 41\n**reasoning:** 41 is not 42.\nIt is off by one.\n**correct:** no\n**confidence:** 85%');
    expect(v).toEqual({ extractedFinalAnswer: '41', reasoning: '41 is not 42.\nIt is off by one.', correct: false, confidence: 85, format: 'lines' });
  });

  it('gives undefined when there is no yes/no verdict', () => {
    expect(parseJudgeReply('I think the answer looks right.')).toBeUndefined();
    expect(parseJudgeReply('{"extracted_final_answer": "B", "correct": "maybe"}')).toBeUndefined();
    expect(parseJudgeReply('')).toBeUndefined();
  });
});

describe('hleMessages', () => {
  it('uses the format instruction of the answer type', () => {
    const sys = (t: HleTask) => hleMessages(t, { memories: [] }, { temperature: 0, judgeTemperature: 0 })[0]!.content as string;
    expect(sys(mc)).toMatch(/multiple choice/);
    expect(sys(mc)).toMatch(/^Answer:/m);
    expect(sys(em)).toMatch(/^Exact Answer:/m);
    for (const t of [mc, em]) expect(sys(t)).toMatch(/Explanation:[\s\S]*Confidence:/);
  });

  it('puts memories in their own system message: successes, then failures, each whole and only when there are any', () => {
    const memories = [mem('m1', true, 'q9', 'WIN-NOTE'), mem('m2', false, 'q8', 'LOSS-NOTE'), mem('m3', true, 'q7', 'WIN-2')];
    const msgs = hleMessages(em, { memories }, { temperature: 0, judgeTemperature: 0 });
    expect(msgs.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    const block = msgs[1]!.content as string;
    const [successes, failures] = block.split('\n\nEarlier attempts');
    expect(successes).toMatch(/judged correct[^\n]*\nWIN-NOTE\n\nWIN-2$/);
    expect(failures).toMatch(/judged wrong[^\n]*\nLOSS-NOTE$/);
    expect(msgs[2]!.content).toBe('How many?');
    const onlyFailures = hleMessages(em, { memories: [mem('m2', false, 'q8', 'LOSS-NOTE')] }, { temperature: 0, judgeTemperature: 0 })[1]!.content as string;
    expect(onlyFailures).not.toMatch(/judged correct/);
  });

  it("names the images a memory brings (its source question's id) on a line before its text", () => {
    const other: HleTask = { ...em, id: 'q3', image: IMG2 };
    const msgs = hleMessages(em, { memories: [mem('m1', true, 'q3', 'note')] }, { temperature: 0, judgeTemperature: 0, tasksById: new Map([[other.id, other]]) });
    expect(msgs[1]!.content).toMatch(/: q3\nnote$/);
  });

  it("sends the question's image and retrieved memories' images as image_url parts", () => {
    const other: HleTask = { ...em, id: 'q3', image: IMG2 };
    const tasksById = new Map([[other.id, other], [mc.id, mc]]);
    const msgs = hleMessages(mc, { memories: [mem('m1', true, 'q3', 'note'), mem('m2', true, 'q1', 'own')] }, { temperature: 0, judgeTemperature: 0, tasksById });
    const parts = msgs.at(-1)!.content as ContentPart[];
    expect(parts[0]).toEqual({ type: 'text', text: mc.question });
    expect(parts.slice(1)).toEqual([
      { type: 'image_url', image_url: { url: IMG } },
      { type: 'image_url', image_url: { url: IMG2 } },
    ]);
  });
});

describe('runHleEpisode', () => {
  const opts = { temperature: 0.6, judgeTemperature: 0 };
  const solver = () => fakeModel(() => 'Explanation: counted.\nExact Answer: 42\nConfidence: 70%');

  it('passes when the judge says yes; keeps the raw reply, extracted answer and verdict; stores question + solution', async () => {
    const judgeReply = '{"extracted_final_answer":"42","reasoning":"same","correct":"yes","confidence":70}';
    const judge = fakeModel(() => judgeReply, 'judge');
    const o = await settleEpisode(runHleEpisode(em, ctxWith(solver(), judge), { ...opts, fidelity: STRICT_JUDGE }));
    expect(o).toMatchObject({ status: 'pass', success: true, answer: '42', steps: 1 });
    expect(o.extra).toMatchObject({ judgeRaw: judgeReply, extractedAnswer: '42', verdict: 'yes', judgeFormat: 'json', solverConfidence: 70 });
    expect(o.trajectory).toMatch(/^Question:\nHow many\?[\s\S]*Solution:\nExplanation: counted/);
    const req = judge.requests[0]!;
    expect(req).toMatchObject({ temperature: 0, jsonMode: true, tags: { role: 'judge', taskId: 'q2' } });
    expect(JSON.stringify(req.messages)).toContain('Exact Answer: 42');
  });

  it('fails on a "no" verdict given as key: value lines', async () => {
    const o = await settleEpisode(runHleEpisode(em, ctxWith(solver(), fakeModel(() => 'extracted_final_answer: 41\nreasoning: off\ncorrect: no')), { ...opts, fidelity: STRICT_JUDGE }));
    expect(o).toMatchObject({ status: 'fail', success: false });
    expect(o.extra).toMatchObject({ verdict: 'no', judgeFormat: 'lines' });
  });

  it('hle.judge-verdict=memrl: turns an unparseable judge reply into an error outcome with the reason and the raw reply', async () => {
    const o = await settleEpisode(runHleEpisode(em, ctxWith(solver(), fakeModel(() => 'hmm, hard to say')), { ...opts, fidelity: STRICT_JUDGE }));
    expect(o).toMatchObject({ status: 'error', success: false });
    expect(o.error).toMatch(/judge reply has no yes\/no verdict: hmm, hard to say/);
    expect(o.extra).toMatchObject({ judgeRaw: 'hmm, hard to say' });
    expect(o.trajectory).toMatch(/Solution/);
  });

  it('hle.judge-verdict=memrl: turns a failing judge call, a failing solver call and a missing judge into error outcomes', async () => {
    const boom = await settleEpisode(runHleEpisode(em, ctxWith(solver(), fakeModel(() => new Error('503 upstream'))), { ...opts, fidelity: STRICT_JUDGE }));
    expect(boom).toMatchObject({ status: 'error', error: 'judge call failed: 503 upstream' });
    const noSolver = await settleEpisode(runHleEpisode(em, ctxWith(fakeModel(() => new Error('timeout')), fakeModel(() => '{}')), opts));
    expect(noSolver).toMatchObject({ status: 'error', error: 'model call failed: timeout', steps: 0 });
    const noJudge = await settleEpisode(runHleEpisode(em, ctxWith(solver(), undefined), opts));
    expect(noJudge.status).toBe('error');
  });

  it('reference: asks the judge without JSON mode and reads its reply as the reference does', async () => {
    const judge = fakeModel(() => 'extracted_final_answer: 42\ncorrect: yesss\nconfidence: 80', 'judge');
    const o = await settleEpisode(runHleEpisode(em, ctxWith(solver(), judge), opts));
    expect(o).toMatchObject({ status: 'pass', success: true, answer: '42' });
    expect(o.extra).toMatchObject({ verdict: 'yes', judgeConfidence: 80, judgeFormat: 'reference' });
    expect(judge.requests[0]!.jsonMode).toBeUndefined();
    expect(JSON.stringify(judge.requests[0]!.messages)).toContain('Explanation: counted.\\nExact Answer: 42\\nConfidence: 70%');
  });

  it('reference: an unparseable reply or a failed judge call counts as "no" (a wrong answer, not an error row)', async () => {
    const garbled = await settleEpisode(runHleEpisode(em, ctxWith(solver(), fakeModel(() => 'hmm, hard to say')), opts));
    expect(garbled).toMatchObject({ status: 'fail', success: false });
    expect(garbled.extra).toMatchObject({ verdict: 'no', judgeRaw: 'hmm, hard to say' });
    const boom = await settleEpisode(runHleEpisode(em, ctxWith(solver(), fakeModel(() => new Error('503 upstream'))), opts));
    expect(boom).toMatchObject({ status: 'fail', success: false });
    expect(boom.extra).toMatchObject({ verdict: 'no', judgeError: '503 upstream' });
  });

  it('records an image warning in the outcome', async () => {
    const o = await settleEpisode(runHleEpisode({ ...em, imageWarning: 'f id q2: bad image' }, ctxWith(solver(), fakeModel(() => '{"correct":"no"}')), opts));
    expect(o.extra).toMatchObject({ imageWarning: 'f id q2: bad image', images: 0 });
  });
});

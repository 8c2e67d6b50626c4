/**
 * The reflection baseline on HLE, as the reference runs it: a retried question gets a
 * system note on its own previous attempt right after the system prompt (its result,
 * the question, the answer alone), made without a model call, never mixed into the
 * memory block.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HleTask } from '../../src/bench/hle/dataset.js';
import { hleAttemptNote, hleMessages, hleTrajectory } from '../../src/bench/hle/episode.js';
import { ATTEMPT_SOLUTION_SWITCH, HLE_SWITCHES } from '../../src/bench/hle/switches.js';
import type { InjectedMemory } from '../../src/core/index.js';
import { makeFidelity } from '../../src/util/fidelity.js';

const task: HleTask = { id: 'q7', key: 'Give the SOLUTION set of x^2 = 1.', question: 'Give the SOLUTION set of x^2 = 1.', answer: '{-1, 1}', answerType: 'exactMatch', category: 'Math' };
const attemptOf = (reply: string, success: boolean): InjectedMemory => ({
  id: 'attempt-q7',
  key: task.key,
  taskId: task.id,
  success,
  content: 'a generic note the HLE episode does not show',
  q: 0,
  sim: 1,
  attempt: { trajectory: hleTrajectory(task, reply) },
});
const other: InjectedMemory = { id: 'm1', key: 'k', taskId: 'q1', success: true, content: 'Remember to factor first.', q: 1, sim: 0.9 };
const OPTS = { temperature: 0, judgeTemperature: 0 };

describe('HLE reflection note', () => {
  it('goes right after the system prompt, before the memory block, and replaces the generic note', () => {
    const messages = hleMessages(task, { memories: [attemptOf('x = 1', false), other] }, OPTS);
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'system', 'user']);
    const note = messages[1]!.content as string;
    expect(note).toContain(task.question);
    expect(note).not.toContain('generic note');
    expect(messages[2]!.content as string).toContain('Remember to factor first.');
    expect(messages[2]!.content as string).not.toContain('x = 1');
  });

  it('says whether the attempt was right, and leaves out the answer line when the attempt answered nothing', () => {
    const wrong = hleAttemptNote(task, { trajectory: hleTrajectory(task, 'x = 1'), success: false });
    const right = hleAttemptNote(task, { trajectory: hleTrajectory(task, 'x = 1'), success: true });
    expect(wrong).not.toBe(right);
    const empty = hleAttemptNote(task, { trajectory: hleTrajectory(task, '   '), success: false });
    expect(empty.split('\n')).toHaveLength(wrong.split('\n').length - 1);
  });

  it('reference: the answer is what follows the first "SOLUTION", even inside the question; the switch shows the answer', () => {
    const trajectory = hleTrajectory(task, 'x = 1 or x = -1');
    const reference = hleAttemptNote(task, { trajectory, success: false });
    // The reference's cut lands inside the question: " set of x^2 = 1." and the rest follow.
    expect(reference).toContain('set of x^2 = 1.\n\nSOLUTION\nx = 1 or x = -1');
    const fixed = hleAttemptNote(task, { trajectory, success: false }, { fidelity: makeFidelity('reference', HLE_SWITCHES, { [ATTEMPT_SOLUTION_SWITCH]: 'memrl' }) });
    expect(fixed).not.toContain('\nSOLUTION\n');
    expect(fixed).toContain('\nx = 1 or x = -1\n');
  });
});

describe('HLE trajectory: a template of the prompt pack (hle/trajectory.md)', () => {
  const pack = mkdtempSync(join(tmpdir(), 'memrl-hle-pack-'));
  afterAll(() => rmSync(pack, { recursive: true, force: true }));
  mkdirSync(join(pack, 'hle'));
  writeFileSync(join(pack, 'hle', 'trajectory.md'), 'Q >> {{question}}\n== answer ==\n{{solution}}\n');
  const promptDir = join(pack, 'hle');

  it("memrl's own wording by default; a pack's template is used as written, its final newline included", () => {
    expect(hleTrajectory(task, '  x = 1 \n')).toBe(`Question:\n${task.question}\n\nSolution:\nx = 1`);
    expect(hleTrajectory(task, '  x = 1 \n', promptDir)).toBe(`Q >> ${task.question}\n== answer ==\nx = 1\n`);
  });

  it("the attempt note finds the answer in a trajectory the pack's template wrote", () => {
    const fixed = makeFidelity('reference', HLE_SWITCHES, { [ATTEMPT_SOLUTION_SWITCH]: 'memrl' });
    const note = hleAttemptNote(task, { trajectory: hleTrajectory(task, 'x = 1 or x = -1', promptDir), success: false }, { promptDir, fidelity: fixed });
    expect(note).toContain('\nx = 1 or x = -1\n');
    expect(note).not.toContain('== answer ==');
    const empty = hleAttemptNote(task, { trajectory: hleTrajectory(task, '', promptDir), success: false }, { promptDir, fidelity: fixed });
    expect(empty).not.toContain('== answer ==');
  });
});

/** The run's opening note on tasks that cannot pass here: only the tasks it plays, at most three named. */
import { describe, expect, it } from 'vitest';
import { blockedTasksNotice } from '../../src/runner/blocked-tasks.js';

const evaluator = {
  blockedTasks: ['a', 'b', 'c', 'd', 'v'].map((id) => ({ taskId: id, reason: `needs lib-${id}` })),
};

describe('blocked tasks notice', () => {
  it('counts and names only the tasks the run plays', () => {
    expect(blockedTasksNotice(evaluator, ['a', 'x', 'y'])).toBe(
      '1 of the 3 tasks cannot pass here, whatever the model writes: a needs lib-a (run.json: evaluator.blockedTasks)',
    );
  });

  it('names three and counts the rest', () => {
    expect(blockedTasksNotice(evaluator, ['a', 'b', 'c', 'd', 'v', 'x'])).toBe(
      '5 of the 6 tasks cannot pass here, whatever the model writes: a needs lib-a; b needs lib-b; c needs lib-c; 2 more (run.json: evaluator.blockedTasks)',
    );
  });

  it('says nothing when every task played can pass, or the evaluator keeps no list', () => {
    expect(blockedTasksNotice(evaluator, ['x', 'y'])).toBeNull();
    expect(blockedTasksNotice({ kind: 'llm-judge' }, ['a'])).toBeNull();
  });
});

/**
 * The ALFWorld sim player decides once per episode whether it follows the expert plan.
 * When a resumed run gets the first turns of an episode from the response cache, the
 * player first sees a later turn: it must still make turn 0's decision, or the resumed
 * episode diverges from the uninterrupted one.
 */
import { describe, expect, it } from 'vitest';
import { SimChannel, alfworldSimPlayer } from '../../src/bench/alfworld/sim-player.js';
import type { AlfworldTask } from '../../src/bench/alfworld/dataset.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import type { ChatMessage, ChatRequest } from '../../src/llm/types.js';

const tasks: AlfworldTask[] = Array.from({ length: 40 }, (_, i) => ({
  id: `train/pick_and_place/${String(i).padStart(4, '0')}`,
  key: `Your task is to: put a mug ${i} in desk.`,
  split: 'train',
  index: i,
  gameFile: `standin/train/pick_and_place/${i}`,
  taskType: 'pick_and_place',
  observation: 'You are in the middle of a room.',
}));
const PLAN = ['go to desk 1', 'take mug 1 from desk 1', 'go to shelf 1', 'move mug 1 to shelf 1'];
const ADMISSIBLE = ['go to desk 1', 'go to shelf 1', 'go to drawer 1', 'go to bed 1', 'look'];

/** Replies of turns `from`..3 of one episode, in a fresh process (fresh channel); earlier replies are given. */
async function episode(task: AlfworldTask, given: string[], from: number): Promise<string[]> {
  const channel = new SimChannel();
  const model = new SimChatModel({ seed: 11, players: { alfworld: alfworldSimPlayer(tasks, channel) } });
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are in a household.' },
    { role: 'user', content: task.key },
  ];
  const replies = [...given];
  for (let turn = 0; turn < 4; turn++) {
    channel.set(`${task.id}|1|train`, { plan: PLAN.slice(turn), admissible: ADMISSIBLE });
    if (turn >= from) {
      const req: ChatRequest = { messages: [...messages], tags: { benchmark: 'alfworld', taskId: task.id, epoch: 1, phase: 'train', role: 'agent', purpose: 'act', turn } };
      replies[turn] = (await model.chat(req)).text;
    }
    messages.push({ role: 'assistant', content: replies[turn] as string }, { role: 'user', content: `Observation: ${turn}` });
  }
  return replies;
}

describe('ALFWorld sim player with cached first turns', () => {
  it('replies as in the uninterrupted episode, whichever turn it sees first', async () => {
    let followed = 0;
    for (const task of tasks) {
      const whole = await episode(task, [], 0);
      if (whole[0]?.includes('goal is clear')) followed++;
      for (const from of [1, 2]) expect(await episode(task, whole.slice(0, from), from)).toEqual(whole);
    }
    // Both decisions occur, so the check means something.
    expect(followed).toBeGreaterThan(0);
    expect(followed).toBeLessThan(tasks.length);
  });
});

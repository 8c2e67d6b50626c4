import type { ChatRequest } from '../../llm/types.js';
import type { SimPlayer } from '../../llm/sim/model.js';
import { successProbability } from '../../llm/sim/shaping.js';
import type { Rng } from '../../util/rng.js';
import type { AlfworldTask } from './dataset.js';

interface SimEpisodeState {
  /** The rest of the expert plan from here ([] once the agent left it, or when the env has none). */
  plan: string[];
  admissible: string[];
  /** Drawn on the episode's first turn: follow the plan, or wander. */
  follow?: boolean;
}

/**
 * What the episode tells the sim player and never the model: the expert plan and
 * the admissible commands of the current state, keyed by task|epoch|phase.
 */
export class SimChannel {
  private states = new Map<string, SimEpisodeState>();
  set(key: string, s: { plan: string[]; admissible: string[] }): void {
    const prev = this.states.get(key);
    this.states.set(key, { ...s, follow: prev?.follow });
  }
  get(key: string): SimEpisodeState | undefined {
    return this.states.get(key);
  }
  delete(key: string): void {
    this.states.delete(key);
  }
}

/**
 * The sim model's ALFWorld player. On an episode's first turn it draws once,
 * with the memory-shaped probability of shaping.ts, whether it follows the
 * game's expert plan; if it does, each turn's action is the plan's next step,
 * otherwise a random admissible command. Always "Thought: … / Action: …".
 */
export function alfworldSimPlayer(tasks: AlfworldTask[], channel: SimChannel): SimPlayer {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return {
    reply(req: ChatRequest, rng: Rng, rngFor?: (req: ChatRequest) => Rng): string {
      const t = req.tags;
      const task = byId.get(t.taskId);
      if (!task) throw new Error(`sim alfworld player: unknown task ${t.taskId}`);
      const state = channel.get(`${t.taskId}|${t.epoch}|${t.phase}`);
      if (!state) return 'Thought: (simulated) I look around first.\nAction: look';
      if (state.follow === undefined) {
        const p = successProbability({ taskId: task.id, taskKey: task.key, memories: req.memoryHints ?? [] });
        // Always turn 0's first draw, also when turns before this one came from a cache
        // (--resume, --cache): each turn adds a reply and an observation to the messages.
        const turn = t.turn ?? 0;
        const opening = { ...req, messages: req.messages.slice(0, req.messages.length - 2 * turn), tags: { ...t, turn: 0 } };
        state.follow = (turn > 0 && rngFor ? rngFor(opening) : rng).next() < p;
      }
      if (state.follow && state.plan.length > 0) {
        return `Thought: (simulated) the next step towards the goal is clear.\nAction: ${state.plan[0]}`;
      }
      const choices = state.admissible.filter((a) => a !== 'inventory' && !a.startsWith('examine'));
      const pick = choices.length > 0 ? (choices[rng.int(choices.length)] as string) : 'look';
      return `Thought: (simulated) I am not sure where to go; let me try something.\nAction: ${pick}`;
    },
  };
}

import type { ChatRequest } from '../../llm/types.js';
import type { SimPlayer } from '../../llm/sim/model.js';
import { successProbability } from '../../llm/sim/shaping.js';
import type { Rng } from '../../util/rng.js';
import { quoteIdent } from '../../env/sql/sql-text.js';
import type { DbTask, LlbTask, OsTask } from './dataset.js';

const GOOD = '(simulated) I know how to do this.';
const UNSURE = '(simulated) Let me look at the data first.';

function lastUser(req: ChatRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i]!;
    if (m.role === 'user') return typeof m.content === 'string' ? m.content : '';
  }
  return '';
}

/** The agent's first reply in the conversation (after the opening's acknowledgement), or null on the first turn. */
function firstReply(req: ChatRequest): string | null {
  const m = req.messages.filter((x) => x.role === 'assistant')[1];
  return m ? (typeof m.content === 'string' ? m.content : '') : null;
}

/** A plausible wrong statement: look at a few rows (md5 tasks then leave the table unchanged). */
export function wrongSql(task: DbTask): string {
  return `SELECT * FROM ${quoteIdent(task.table.name)} LIMIT 2;`;
}

function dbReply(task: DbTask, req: ChatRequest, rng: Rng): string {
  const first = firstReply(req);
  if (first === null) {
    const p = successProbability({ taskId: task.id, taskKey: task.key, memories: req.memoryHints ?? [] });
    const follow = rng.next() < p;
    const sql = follow ? task.answer.sql.replace(/\s+/g, ' ').trim() : wrongSql(task);
    return `${follow ? GOOD : UNSURE}\nAction: Operation\n\`\`\`sql\n${sql}\n\`\`\``;
  }
  // Second turn: answer with what the statement returned (md5 tasks: anything).
  const answer = task.answer.md5 !== null ? 'done' : lastUser(req);
  return `(simulated) That is the result.\nAction: Answer\nFinal Answer: ${answer}`;
}

function osReply(task: OsTask, req: ChatRequest, rng: Rng): string {
  if (firstReply(req) !== null) return '(simulated) Done.\nAct: finish';
  const p = successProbability({ taskId: task.id, taskKey: task.key, memories: req.memoryHints ?? [] });
  const script = rng.next() < p && task.groundTruthScript ? task.groundTruthScript : 'echo "not sure what to do"';
  return `(simulated) Running the commands.\nAct: bash\n\`\`\`bash\n${script}\n\`\`\``;
}

/**
 * The sim model's LLB player. On the first turn it draws, with the memory-shaped
 * probability of shaping.ts, whether it knows the task: then it runs the gold SQL /
 * ground-truth script, else a plausible wrong one; on the next turn it answers with
 * the result it saw (db) or finishes (os). The decision is carried by the first
 * reply in the conversation, so no state is kept between calls.
 */
export function llbSimPlayer(tasks: LlbTask[]): SimPlayer {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return {
    reply(req: ChatRequest, rng: Rng): string {
      const task = byId.get(req.tags.taskId);
      if (!task) throw new Error(`sim llb player: unknown task ${req.tags.taskId}`);
      return task.kind === 'db' ? dbReply(task, req, rng) : osReply(task, req, rng);
    },
  };
}

/**
 * LLB db replies → an action, and the statements an Operation sends.
 *
 * Reference (db_bench/task.py:DBBench._parse_agent_response): the first
 * `Action: Operation|Answer` (that exact case and one space) anywhere in the reply
 * decides; an Operation takes the first ```` ```sql\n…\n``` ```` block of the whole
 * reply, stripped, its newlines turned into spaces; an Answer takes what follows the
 * first `\nFinal Answer:` up to the end of that line, stripped. The SQL is then cut
 * at every `;` (db_bench/container.py:DBBenchContainer.execute), quotes or not, and
 * the pieces run one after another; the observation is the last one's rows or the
 * first error.
 *
 * memrl's parser (switch llb.db-parse): `Action:` in any case and spacing, after it a
 * ```sql, ```mysql or bare fence, and the whole rest of the reply as the answer.
 * memrl's statement handling (switch llb.db-statement-split): the SQL goes to the
 * server's client as written, which splits statements outside quotes.
 */
import type { Fidelity } from '../../util/fidelity.js';
import { pyStrip } from '../../util/python/text.js';
import { LLB_SWITCHES } from './switches.js';

export interface ParsedAction {
  action: 'execute' | 'finish' | 'invalid';
  /** execute: the SQL or script; finish: the answer (db) or null (os). */
  content: string | null;
  /** Why a reply is invalid (session metadata; the model never sees it). */
  finish_reason: string | null;
}

// The reference's finish_reason strings, kept as it keeps them (fixed in its code).
const NO_ACTION = 'Can not find action in agent response. Pattern: "Action: (Operation|Answer)\\n';
const NO_SQL = 'Can not find SQL in agent response. Pattern: "```sql\\n([\\s\\S]*?)\\n```';
const NO_ANSWER = 'Can not find final answer in agent response. Pattern: \\nFinal Answer:(.*)';

export function parseDbReplyReference(reply: string): ParsedAction {
  const action = /Action: (Operation|Answer)/.exec(reply);
  if (!action) return { action: 'invalid', content: null, finish_reason: NO_ACTION };
  if (action[1] === 'Operation') {
    const sql = /```sql\n([^]*?)\n```/.exec(reply);
    if (!sql) return { action: 'invalid', content: null, finish_reason: NO_SQL };
    return { action: 'execute', content: pyStrip(sql[1] as string).replace(/\n/g, ' '), finish_reason: null };
  }
  // Python's `.` stops at \n only (not at \r).
  const answer = /\nFinal Answer:([^\n]*)/.exec(reply);
  if (!answer) return { action: 'invalid', content: null, finish_reason: NO_ANSWER };
  return { action: 'finish', content: pyStrip(answer[1] as string), finish_reason: null };
}

export function parseDbReplyMemrl(reply: string): ParsedAction {
  const m = /Action\s*:\s*(Operation|Answer)/i.exec(reply);
  if (!m) return { action: 'invalid', content: null, finish_reason: 'no "Action: Operation" or "Action: Answer" line' };
  const rest = reply.slice(m.index);
  if ((m[1] as string).toLowerCase() === 'answer') {
    const fa = /Final\s+Answer\s*:\s*([^]*)$/i.exec(rest);
    return fa ? { action: 'finish', content: (fa[1] as string).trim(), finish_reason: null } : { action: 'invalid', content: null, finish_reason: 'no "Final Answer:" after "Action: Answer"' };
  }
  const sql = /```(?:sql|mysql)?[ \t]*\n?([^]*?)```/i.exec(rest)?.[1]?.trim();
  return sql ? { action: 'execute', content: sql, finish_reason: null } : { action: 'invalid', content: null, finish_reason: 'no SQL code block after "Action: Operation"' };
}

export function parseDbReply(reply: string, fidelity: Fidelity): ParsedAction {
  return fidelity.memrl(LLB_SWITCHES.dbParse) ? parseDbReplyMemrl(reply) : parseDbReplyReference(reply);
}

/** What one Operation sends, in order: the reference's `;` pieces, or memrl's whole text. */
export function sqlStatements(sql: string, fidelity: Fidelity): string[] {
  if (fidelity.memrl(LLB_SWITCHES.dbStatementSplit)) return pyStrip(sql) === '' ? [] : [sql];
  return sql
    .split(';')
    .map(pyStrip)
    .filter((s) => s !== '');
}

/**
 * LLB os replies → an action, and the observation sent back after a command.
 *
 * Reference (os_interaction/task.py:OSInteraction._parse_agent_response): the first
 * `Act:` followed by text (after optional whitespace, newlines included) decides;
 * that text starting with `bash` (any case) runs every ```` ```bash\n…\n``` ````
 * block of the reply joined by a blank line, none at all being the empty script;
 * starting with `finish` ends the task; anything else is invalid. The command runs
 * as `bash -c <script>` (os_interaction/container.py:execute_independent).
 *
 * memrl's parser (switch llb.os-parse): `Act: bash|finish` in any case, markdown
 * bold allowed; ```bash, ```sh and ```shell blocks; no block is an invalid reply.
 */
import type { Fidelity } from '../../util/fidelity.js';
import type { ParsedAction } from './db-parse.js';
import { PY_SPACE } from '../../util/python/text.js';
import { LLB_SWITCHES } from './switches.js';

// The reference's finish_reason strings and observation texts: fixed in its code, kept here as protocol.
const NO_ACTION = 'Cannot extract action from agent response. Pattern: "Act:\\s*(.+)"';
const BAD_ACTION = 'Invalid action string matched by pattern "Act:\\s*(.+)"';
const OUTPUT = 'The output of the OS:\n\n';
const EMPTY = 'The output of the OS is empty.';
const timeoutText = (seconds: number): string => `The command is marked as timeout since it did not finish within ${seconds} seconds.`;

/** memrl's cap on command output shown to the model (switch llb.os-output-cap). */
export const OS_OUTPUT_CAP = 800;

const ACT = new RegExp(`Act:[${PY_SPACE}]*([^\\n]+)`);

export function parseOsReplyReference(reply: string): ParsedAction {
  const m = ACT.exec(reply);
  if (!m) return { action: 'invalid', content: null, finish_reason: NO_ACTION };
  const act = (m[1] as string).toLowerCase();
  if (act.startsWith('bash')) {
    const blocks = [...reply.matchAll(/```bash\n([^]*?)\n```/g)].map((b) => b[1] as string);
    return { action: 'execute', content: blocks.join('\n\n'), finish_reason: null };
  }
  if (act.startsWith('finish')) return { action: 'finish', content: null, finish_reason: null };
  return { action: 'invalid', content: null, finish_reason: BAD_ACTION };
}

export function parseOsReplyMemrl(reply: string): ParsedAction {
  const m = /(?:\*\*)?Act\s*:\s*(?:\*\*)?\s*`?(bash|finish)\b/i.exec(reply);
  if (!m) return { action: 'invalid', content: null, finish_reason: 'no "Act: bash" or "Act: finish" line' };
  if ((m[1] as string).toLowerCase() === 'finish') return { action: 'finish', content: null, finish_reason: null };
  const blocks = [...reply.slice(m.index).matchAll(/```(?:bash|sh|shell)[ \t]*\r?\n([^]*?)```/gi)].map((b) => (b[1] as string).replace(/\r?\n$/, ''));
  const script = blocks.filter((b) => b.trim() !== '').join('\n\n');
  return script ? { action: 'execute', content: script, finish_reason: null } : { action: 'invalid', content: null, finish_reason: 'no ```bash block after "Act: bash"' };
}

export function parseOsReply(reply: string, fidelity: Fidelity): ParsedAction {
  return fidelity.memrl(LLB_SWITCHES.osParse) ? parseOsReplyMemrl(reply) : parseOsReplyReference(reply);
}

/** The user message after a command: its output (or the timeout notice) under the reference's fixed prefix. */
export function osObservation(result: { output: string | null; timedOut: boolean }, timeoutS: number, fidelity: Fidelity): string {
  let output = result.timedOut ? timeoutText(timeoutS) : (result.output ?? '');
  if (!result.timedOut && fidelity.memrl(LLB_SWITCHES.osOutputCap) && output.length > OS_OUTPUT_CAP) output = `${output.slice(0, OS_OUTPUT_CAP)}... (truncated)`;
  return output ? OUTPUT + output : EMPTY;
}

/**
 * The code in a model reply, two ways (switch `bcb.extract-code`):
 *
 * - reference (MemRL's bcb_adapter.extract_code_from_response): the text between the
 *   first ``` and the next ```, after an optional `python` tag (any case) and any
 *   whitespace, stripped; no such pair: the whole reply, stripped. Other tags stay
 *   in the code (```python3 gives "3\n..."), an unclosed fence is kept verbatim, and
 *   ``` inside the code ends the block.
 * - memrl: the first ```python (or ```py / ```python3) fenced block, else the first
 *   fenced block of any kind, else the whole reply. Fences are whole lines of ``` or
 *   ~~~; an unterminated fence (a reply cut off by max_tokens) still yields its contents.
 */
import type { Fidelity } from '../../core/index.js';
import { PY_WS, pyIgnoreCase, pyStrip } from '../../util/python/text.js';

export const EXTRACT_SWITCH = 'bcb.extract-code';

const REFERENCE_FENCE = new RegExp(`\`\`\`(?:${pyIgnoreCase('python')})?${PY_WS}*([\\s\\S]*?)\`\`\``);

/** MemRL's extraction, exactly: `re.search(r"```(?:python)?\s*(.*?)```", text, DOTALL | IGNORECASE)`. */
export function extractCodeReference(reply: string | null | undefined): string {
  if (!reply) return '';
  const m = REFERENCE_FENCE.exec(reply);
  return pyStrip(m ? (m[1] ?? '') : reply);
}

/** The code a run tests, by the run's fidelity. */
export function extractCodeFor(reply: string, fidelity: Fidelity): string {
  return fidelity.memrl(EXTRACT_SWITCH) ? extractCode(reply) : extractCodeReference(reply);
}

const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n/gm;

interface Block {
  lang: string;
  body: string;
}

function fencedBlocks(reply: string): Block[] {
  const blocks: Block[] = [];
  FENCE.lastIndex = 0;
  let open: RegExpExecArray | null;
  while ((open = FENCE.exec(reply)) !== null) {
    const marker = open[1] as string;
    const start = open.index + open[0].length;
    // The closing fence: same character, at least as long, alone on its line.
    const closeRe = new RegExp(`^[ \\t]*${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`, 'gm');
    closeRe.lastIndex = start;
    const close = closeRe.exec(reply);
    const end = close ? close.index : reply.length;
    blocks.push({ lang: (open[2] ?? '').toLowerCase(), body: reply.slice(start, end) });
    FENCE.lastIndex = close ? close.index + close[0].length : reply.length;
  }
  return blocks;
}

const PYTHON_TAGS = new Set(['python', 'py', 'python3']);

/** memrl's extraction (the switch's memrl setting). */
export function extractCode(reply: string): string {
  const blocks = fencedBlocks(reply);
  const chosen = blocks.find((b) => PYTHON_TAGS.has(b.lang)) ?? blocks[0];
  const code = chosen ? chosen.body : reply;
  return code.replace(/\s+$/, '');
}

/** BigCodeBench's fidelity switches (docs/fidelity.md, "BigCodeBench"). Plain data: index.ts declares them. */
import type { FidelitySwitch } from '../../util/fidelity.js';
import { EXTRACT_SWITCH } from './extract.js';

export const SANITIZE_SWITCH = 'bcb.sanitize';
export const TIME_LIMIT_SWITCH = 'bcb.time-limit';
export const EMPTY_REPLY_SWITCH = 'bcb.empty-reply';

export const BCB_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: EXTRACT_SWITCH,
    class: 'bug',
    reference:
      'code = the text between the first ``` and the next ``` (an optional "python" tag skipped, other tags such as python3 or sql kept as code), else the whole reply; stripped',
    memrl: 'code = the first ```python/py/python3 block, else the first fenced block of any kind, else the whole reply; fences are whole lines, an unterminated fence keeps its body',
    source: 'memrl/bigcodebench_eval/bcb_adapter.py:extract_code_from_response',
  },
  {
    id: SANITIZE_SWITCH,
    class: 'choice',
    reference:
      'code is tested as extracted: the runner calls the BigCodeBench sanitizer, but the vendored package cannot import it (no bigcodebench/data), so sanitize_code returns the code unchanged',
    memrl:
      "BigCodeBench's sanitizer runs after the syntax check: only imports and the definitions the entry point reaches are kept, so top-level demo code (prints, calls, __main__ blocks) is dropped",
    source: 'memrl/bigcodebench_eval/eval_utils.py:sanitize_code (called from memrl/run/bcb_runner.py:BCBRunner._evaluate_one)',
  },
  {
    id: TIME_LIMIT_SWITCH,
    class: 'bug',
    reference:
      "a test run gets min(hard_timeout, max(240, eval_timeout) + 1) s, 120 s by default, start-up and imports included: BigCodeBench raises the runner's eval_timeout (gt_time_limit) to its own 240 s limit, so the runner's 120 s join is what ends a run",
    memrl: 'a test run gets eval_timeout (60 s by default), capped by hard_timeout, as the runner asks',
    source:
      'memrl/bigcodebench_eval/eval_utils.py:run_untrusted_check_with_hard_timeout (p.join(hard_timeout_s)), called from memrl/run/bcb_runner.py:BCBRunner._evaluate_one; 3rdparty/bigcodebench-main/bigcodebench/eval/__init__.py:untrusted_check (TIMEOUT_LIMIT in eval/utils.py)',
  },
  {
    id: EMPTY_REPLY_SWITCH,
    class: 'bug',
    reference:
      'an empty model reply (a reasoning model that spent max_tokens, a refusal) is code "": it compiles, its tests fail, and it is a failure the memory learns from',
    memrl: 'an empty reply is an error row (fault kind model): no verdict, no memory, no Q update',
    source: 'memrl/providers/llm.py:OpenAILLM.generate (returns content or ""), then memrl/run/bcb_runner.py:BCBRunner._run_phase',
  },
];

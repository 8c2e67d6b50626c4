/**
 * LifelongAgentBench's fidelity switches: every way memrl's LLB can differ from the
 * reference (MemTensor/MemRL and its vendored LifelongAgentBench). Plain data, cheap
 * to import: the module index declares them, the episode and scorers consult them.
 */
import type { FidelitySwitch } from '../../util/fidelity.js';

const DB_TASK = '3rdparty/LifelongAgentBench/src/tasks/instance/db_bench/task.py';
const OS_TASK = '3rdparty/LifelongAgentBench/src/tasks/instance/os_interaction/task.py';

export const LLB_SWITCHES = {
  dbParse: 'llb.db-parse',
  dbStatementSplit: 'llb.db-statement-split',
  dbDirectValidator: 'llb.db-direct-validator',
  dbScoreAfterInvalid: 'llb.db-score-after-invalid',
  osParse: 'llb.os-parse',
  osEvalAlways: 'llb.os-eval-always',
  osOutputCap: 'llb.os-output-cap',
  extraTurnAtLimit: 'llb.extra-turn-at-limit',
  simNormFromYaml: 'llb.sim-norm-from-yaml',
  emptyReply: 'llb.empty-reply',
} as const;

export const LLB_FIDELITY_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: LLB_SWITCHES.dbParse,
    class: 'bug',
    reference:
      'db replies: only "Action: Operation|Answer" with that case and one space; SQL only from a ```sql fence with a newline on both sides; the answer is the rest of the "Final Answer:" line (an answer on the next line is empty)',
    memrl: 'db replies: "Action:" in any case and spacing; a ```sql, ```mysql or bare fence after it; the answer runs to the end of the reply',
    source: `${DB_TASK}:DBBench._parse_agent_response`,
  },
  {
    id: LLB_SWITCHES.dbStatementSplit,
    class: 'bug',
    reference: "the SQL is cut at every ';', inside quotes too, and each piece runs on its own (a literal holding ';' breaks the statement)",
    memrl: "the SQL goes to the server's client as written, which splits statements outside quotes",
    source: '3rdparty/LifelongAgentBench/src/tasks/instance/db_bench/container.py:DBBenchContainer.execute',
  },
  {
    id: LLB_SWITCHES.dbDirectValidator,
    class: 'bug',
    reference:
      "direct answers: rows found by parentheses, cells split at every comma, rows in order; a quoted number such as '-55' fails (an off-by-one in its trim); a string holding a comma or parentheses cannot match",
    memrl:
      'direct answers: parsed as a Python/JSON literal (tuples, Decimal, None, quoted strings with commas), numbers within 1e-6, quotes around cells ignored; row order counts only when the gold SQL has ORDER BY',
    source: `${DB_TASK}:DirectTypeAnswerValidator.validate`,
  },
  {
    id: LLB_SWITCHES.dbScoreAfterInvalid,
    class: 'bug',
    reference: 'after a reply in no valid format, md5 tasks are still scored by the table state and direct tasks with an empty answer (its own prompt says such a reply fails at once)',
    memrl: 'a reply in no valid format fails the task without scoring it',
    source: `${DB_TASK}:DBBench._interact (AgentAction.INVALID → _get_default_task_output)`,
  },
  {
    id: LLB_SWITCHES.osParse,
    class: 'bug',
    reference:
      'os replies: the first "Act:" followed by text starting with bash/finish in any case ("**Act:** bash" is invalid, "Act: bash_script" is bash); every ```bash block, joined by a blank line; no ```bash block runs an empty script',
    memrl: 'os replies: "Act: bash|finish" in any case, markdown bold allowed; every ```bash, ```sh or ```shell block, joined by a blank line; no block is an invalid reply',
    source: `${OS_TASK}:OSInteraction._parse_agent_response`,
  },
  {
    id: LLB_SWITCHES.osEvalAlways,
    class: 'choice',
    reference: 'os tasks: the evaluation script runs whatever the final status, after a reply in no valid format too',
    memrl: 'os tasks: a reply in no valid format fails the task without running the evaluation script',
    source: `${OS_TASK}:OSInteraction._complete`,
  },
  {
    id: LLB_SWITCHES.osOutputCap,
    class: 'choice',
    reference: 'command output goes back to the model whole',
    memrl: 'command output is cut at 800 characters, with "... (truncated)"',
    source: `${OS_TASK}:OSInteraction._interact`,
  },
  {
    id: LLB_SWITCHES.extraTurnAtLimit,
    class: 'bug',
    reference: 'at the round limit the model is asked once more; that reply is never acted on but stays in the transcript the memory is written from',
    memrl: 'the episode stops at the round limit without another model call',
    source: '3rdparty/LifelongAgentBench/src/tasks/task.py:Task.interact (round check after the agent replied)',
  },
  {
    id: LLB_SWITCHES.simNormFromYaml,
    class: 'bug',
    reference: "Phase B z-scores similarity with the memory service's defaults 0.1857 / 0.0941: run_llb.py never passes memory.sim_norm_mean/std",
    memrl: "Phase B uses the config's memory.sim_norm_mean / sim_norm_std (rl_llb_config.yaml: 0.39 / 0.14)",
    source: 'run/run_llb.py:main (MemoryService(...) without sim_norm_*; defaults in memrl/service/memory_service.py:MemoryService.__init__)',
  },
  {
    id: LLB_SWITCHES.emptyReply,
    class: 'bug',
    reference:
      'an empty model reply (a reasoning model that spent max_tokens, a refusal) is a reply in no valid format: the session ends, and the task is scored as after any invalid reply (llb.db-score-after-invalid, llb.os-eval-always)',
    memrl: 'an empty reply is an error row (fault kind model): not scored, no memory, no Q update',
    source: 'memrl/lifelongbench_eval/lm_adapter.py (provider.generate(...) or ""), then the task\'s _parse_agent_response',
  },
];

/** memrl/service/memory_service.py:MemoryService.__init__ defaults, which LLB runs with. */
export const REFERENCE_SIM_NORM = { mean: 0.1856827586889267, std: 0.09407906234264374 } as const;

/**
 * The memory writer's fidelity switches: where writing a memory can differ from the
 * reference's MemoryService (memrl/service/). Declared here, beside the writer, and
 * registered with the config so profiles and overrides reach them.
 */
import type { FidelitySwitch } from '../util/fidelity.js';

export const SCRIPT_TEMPERATURE = 'writer.script-temperature';
export const SCRIPT_INPUT = 'writer.script-input';
export const FAILED_CALL = 'writer.failed-call';

export const WRITER_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: SCRIPT_TEMPERATURE,
    class: 'choice',
    reference: "scripts are written at the provider's defaults, which the runners set to the run's llm.temperature and llm.max_tokens (0 for BCB, LLB and ALFWorld, 0.6 for HLE)",
    memrl: 'scripts are written at temperature 0.7 (memory.script_temperature is not a key; the writer option scriptTemperature)',
    source: 'memrl/providers/llm.py:OpenAILLM.generate_script (default_temperature from run/run_*.py)',
  },
  {
    id: SCRIPT_INPUT,
    class: 'choice',
    reference: 'the script prompt sees the trajectory only (the builders receive the task description and do not pass it on)',
    memrl: 'the script prompt sees the task and the trajectory (template script-with-task.md)',
    source: 'memrl/service/builders.py:ProceduralizationBuilder.build, memrl/providers/llm.py:OpenAILLM.generate_script',
  },
  {
    id: FAILED_CALL,
    class: 'choice',
    reference:
      'a script call that fails (after retries) writes no memory; a failed reflection call stores a fixed note; an empty reply is stored as it came (empty)',
    memrl: 'a failed or empty script or reflection call stores a fixed placeholder (fallback-script.md / fallback-reflection.md), so every episode writes a memory',
    source: 'memrl/service/builders.py:ProceduralizationBuilder.build (raises), memrl/service/updater.py:BaseUpdater.update_batch, BaseUpdater._generate_reflection',
  },
];

/**
 * The memory package's fidelity switches: where writing a memory (the writer) or
 * committing a batch (the engine) can differ from the reference's MemoryService
 * (memrl/service/). Declared here, beside them, and registered with the config so
 * profiles and overrides reach them.
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

export const COMMIT_ORDER = 'engine.commit-order';
export const BUCKET_OVERWRITE = 'engine.bucket-overwrite';

/** The engine's switches: where the commit at a batch barrier can differ from the reference's MemoryService. */
export const ENGINE_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: COMMIT_ORDER,
    class: 'choice',
    reference:
      "a batch's Q updates and new memories are applied one episode at a time in the order the runner collected them: ALFWorld games by the step they ended at (slot order within a step), then the games that ran out of steps; LLB by finishing order, taken as the number of model replies (ties in task order); BCB and HLE in task order",
    memrl: 'in task order, whatever order the episodes finished in',
    source:
      'memrl/run/alfworld_rl_runner.py:AlfworldRunner._sample_from_batch and AlfworldRunner.run (update_values, add_memories); memrl/run/llb_rl_runner.py:LLBRunner._sample_from_indices (as_completed); memrl/service/memory_service.py:MemoryService.update_values',
  },
  {
    id: BUCKET_OVERWRITE,
    class: 'bug',
    reference:
      "a new memory that joins no similar key replaces its own task text's bucket: of several memories of one new task text in a batch only the last stays retrievable, and an earlier bucket of that text is dropped; a retrieval whose candidates the q_min filter removed hands no keys to join",
    memrl: "the memory is appended to its task text's bucket, and the keys Phase A found are used for joining whatever q_min removed",
    source: 'memrl/service/memory_service.py:MemoryService.add_memories (dict_memory[task_description] = [mem_id]) and MemoryService.retrieve_query (an empty pool returns no key list)',
  },
];

/** Every switch of the memory package: the writer's and the engine's. */
export const MEMORY_SWITCHES: readonly FidelitySwitch[] = [...WRITER_SWITCHES, ...ENGINE_SWITCHES];

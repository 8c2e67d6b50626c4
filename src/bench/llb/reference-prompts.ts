/**
 * Where LLB's templates (src/bench/llb/prompts) sit in the reference code, for
 * `memrl prompts import`: locations only, never the text. The observation texts,
 * the "OK." acknowledgement and the invalid-reply reasons are fixed in the
 * reference's code and in memrl's (protocol, not prompts).
 */
import type { ReferencePrompt } from '../../util/fidelity.js';

const PROMPTS = 'memrl/lifelongbench_eval/prompts.py';
const MEMCTX = 'memrl/lifelongbench_eval/memory_context.py:format_llb_memory_context';
const REQUIREMENTS = '3rdparty/LifelongAgentBench/src/factories/chat_history_item/offline/task_requirement.py:TASK_REQUIREMENT_DICT';
/** The sentence run_llb's standard chat items append to each requirement (construct_offline's requirement_suffix). */
const REQUIREMENT_SUFFIX = 'memrl/lifelongbench_eval/task_wrappers.py:ensure_standard_prompts@4';
const DB_ITEM = '3rdparty/LifelongAgentBench/src/tasks/instance/db_bench/task.py:DBBench._construct_dataset_item';

export const LLB_REFERENCE_PROMPTS: readonly ReferencePrompt[] = [
  { slot: 'system.md', from: [`${PROMPTS}:DEFAULT_SYSTEM_PROMPT`] },
  { slot: 'db-format.md', from: [`${PROMPTS}:LLB_DB_STRICT_OUTPUT_FORMAT_CONSTRAINT`] },
  { slot: 'os-format.md', from: [`${PROMPTS}:LLB_OS_STRICT_OUTPUT_FORMAT_CONSTRAINT`] },
  // TASK_REQUIREMENT_DICT's values in order: db_bench, os_interaction, knowledge_graph.
  { slot: 'db-preamble.md', from: [`${REQUIREMENTS}@1`, REQUIREMENT_SUFFIX] },
  { slot: 'os-preamble.md', from: [`${REQUIREMENTS}@2`, REQUIREMENT_SUFFIX] },
  { slot: 'db-task.md', from: [`${DB_ITEM}:instruction`], fields: { question_prefix: 'instruction', question_suffix: 'tableLine' } },
  {
    slot: 'db-table.md',
    from: [`${DB_ITEM}:question_suffix`],
    fields: { 'table_info.name': 'table', "', '.join([column_info.name for column_info in column_info_list])": 'headers' },
  },
  // format_llb_memory_context's string literals in source order (dict keys and defaults in between).
  { slot: 'memory-header.md', from: [`${MEMCTX}@1`] },
  { slot: 'memory-success-section.md', from: [`${MEMCTX}@3`] },
  { slot: 'memory-success-item.md', from: [`${MEMCTX}@10`], fields: { 'i + 1': 'index', mem_type: 'type', content: 'content' } },
  { slot: 'memory-failure-section.md', from: [`${MEMCTX}@13`] },
  { slot: 'memory-failure-item.md', from: [`${MEMCTX}@20`], fields: { 'i + 1': 'index', mem_type: 'type', content: 'content' } },
];

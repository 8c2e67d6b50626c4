/**
 * LLB's fidelity targets: the reference functions recorded in
 * ../shared/fidelity/{llb_*,memctx_llb}.jsonl and memrl's counterparts, replayed by
 * `memrl fidelity`. Each run() maps a recorded input onto memrl's own parser or
 * scorer and returns the recorded output's shape.
 */
import { FidelityInputError, type FidelityRunContext, type FidelityTarget } from '../../core/fidelity.js';
import { packNamespace } from '../../util/template.js';
import { parseDbReply, sqlStatements } from './db-parse.js';
import { md5AnswerFromResult, md5HashQuery, memrlDirectMatches } from './db-score.js';
import { referenceDirectMatches } from './db-validate.js';
import { bucketMemories, formatLlbMemoryContext, type LlbMemoryItem } from './memory-context.js';
import { osObservation, parseOsReply } from './os-parse.js';
import { pyLen, pyTruthy } from '../../util/python/text.js';
import { LLB_SWITCHES } from './switches.js';

const DB_TASK = '3rdparty/LifelongAgentBench/src/tasks/instance/db_bench/task.py';
const OS_TASK = '3rdparty/LifelongAgentBench/src/tasks/instance/os_interaction/task.py';
/** The database the recorded db parse vectors ran their statements in. */
const VECTOR_DATABASE = 'shop';
/** The table the recorded md5 vectors hash when their input names none. */
const VECTOR_TABLE = { table: 'inventory', columns: ['id', 'name', 'qty'] };
const OS_TIMEOUT_S = 20;

function record(input: unknown, target: string): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new FidelityInputError(`${target}: the input is an object`);
  return input as Record<string, unknown>;
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new FidelityInputError(`${what} is a string`);
  return v;
}

const dbParse: FidelityTarget = {
  name: 'llb_db_parse_action',
  source: `${DB_TASK}:DBBench._parse_agent_response`,
  compare: 'exact',
  switches: [LLB_SWITCHES.dbParse, LLB_SWITCHES.dbStatementSplit],
  run(input, { fidelity }) {
    const reply = str(record(input, this.name).reply, 'reply');
    const parsed = parseDbReply(reply, fidelity);
    if (parsed.action !== 'execute') return parsed;
    // The container first selects the task's database, then sends each statement.
    return { ...parsed, executed_statements: [`use \`${VECTOR_DATABASE}\`;`, ...sqlStatements(parsed.content ?? '', fidelity)] };
  },
};

const dbValidate: FidelityTarget = {
  name: 'llb_db_validate_direct',
  source: `${DB_TASK}:DirectTypeAnswerValidator.validate`,
  compare: 'exact',
  switches: [LLB_SWITCHES.dbDirectValidator],
  run(input, { fidelity }) {
    const r = record(input, this.name);
    const answer = str(r.agent_answer, 'agent_answer');
    if (!Array.isArray(r.ground_truth) || !r.ground_truth.every(Array.isArray)) throw new FidelityInputError('ground_truth is a list of rows');
    const gold = r.ground_truth as unknown[][];
    // The vectors carry no gold SQL: memrl's check is then order-free.
    return fidelity.memrl(LLB_SWITCHES.dbDirectValidator) ? memrlDirectMatches(answer, gold, false) : referenceDirectMatches(answer, gold);
  },
};

const dbMd5: FidelityTarget = {
  name: 'llb_db_md5_answer',
  source: `${DB_TASK}:DBBench._get_task_output`,
  compare: 'exact',
  switches: [],
  run(input) {
    const r = record(input, this.name);
    const table = r.table === undefined ? VECTOR_TABLE.table : str(r.table, 'table');
    const columns = r.columns === undefined ? VECTOR_TABLE.columns : (r.columns as unknown[]).map((c) => str(c, 'a column'));
    const result = str(r.container_result, 'container_result');
    let taskOutput: unknown;
    if (r.raise_exc === true) taskOutput = { raises: 'TaskEnvironmentException' };
    else {
      try {
        taskOutput = { answer: md5AnswerFromResult(result) };
      } catch {
        taskOutput = { raises: 'TaskEnvironmentException' };
      }
    }
    // memrl's task database holds the task's table under a per-task name; the reference names it after the table.
    return { task_output: taskOutput, query_sent: md5HashQuery(table, columns), database: table };
  },
};

const SAMPLE_STATUS = { execute: 'running', finish: 'completed', invalid: 'agent_validation_failed' } as const;

const osParse: FidelityTarget = {
  name: 'llb_os_parse_action',
  source: `${OS_TASK}:OSInteraction._parse_agent_response`,
  compare: 'exact',
  switches: [LLB_SWITCHES.osParse, LLB_SWITCHES.osOutputCap],
  run(input, { fidelity }) {
    const r = record(input, this.name);
    const parsed = parseOsReply(str(r.reply, 'reply'), fidelity);
    const exec = record(r.exec_result, 'exec_result');
    const execute = parsed.action === 'execute';
    return {
      ...parsed,
      argv: execute ? ['bash', '-c', parsed.content ?? ''] : null,
      observation: execute ? osObservation({ output: (exec.output as string | null) ?? null, timedOut: exec.timeout_flag === true }, OS_TIMEOUT_S, fidelity) : null,
      sample_status: SAMPLE_STATUS[parsed.action],
      task_output: execute ? null : { answer: null },
    };
  },
};

/** A recorded record's type label as the reference formats it: metadata.type (None when unset), or the bucket's default without metadata. */
function typeLabel(metadata: unknown, success: boolean): string {
  if (metadata === null || metadata === undefined) return success ? 'SUCCESS_PROCEDURE' : 'FAILURE_REFLECTION';
  const t = (metadata as Record<string, unknown>).type;
  if (t === null || t === undefined) return 'None';
  if (typeof t === 'boolean') return t ? 'True' : 'False';
  return String(t);
}

interface MemctxOutput {
  buckets: Record<string, number>;
  text: string;
  headers: string[];
  sections: string[];
  length: number;
}

const memctx: FidelityTarget = {
  name: 'memctx_llb',
  source: 'memrl/lifelongbench_eval/memory_context.py:format_llb_memory_context',
  compare: 'structure',
  switches: [],
  run(input, ctx: FidelityRunContext) {
    const r = record(input, this.name);
    if (!Array.isArray(r.records)) throw new FidelityInputError('records is a list');
    const records = (r.records as unknown[]).map((x) => {
      const rec = record(x, 'a record');
      const success = pyTruthy((rec.metadata as Record<string, unknown> | null | undefined)?.success);
      const content = 'content' in rec ? (rec.content === null ? null : String(rec.content)) : '';
      return { success, item: { content, type: typeLabel(rec.metadata, success) } satisfies LlbMemoryItem };
    });
    const buckets = bucketMemories(records, (x) => x.success);
    const out = formatLlbMemoryContext(
      { ...(buckets.successed ? { successed: buckets.successed.map((x) => x.item) } : {}), ...(buckets.failed ? { failed: buckets.failed.map((x) => x.item) } : {}) },
      { task: str(r.task, 'task'), budgetWords: typeof r.budget_tokens === 'number' ? r.budget_tokens : null, promptDir: packNamespace(ctx.promptDir, 'llb') },
    );
    const counts: Record<string, number> = {};
    if (buckets.successed) counts.successed = buckets.successed.length;
    if (buckets.failed) counts.failed = buckets.failed.length;
    return { buckets: counts, text: out.text, headers: out.headers, sections: out.sections, length: pyLen(out.text) } satisfies MemctxOutput;
  },
  /**
   * What is kept, in which order, and where it is cut, whatever the wording: the
   * bucket counts, the number of sections, and per item its section, its number
   * (the first integer of its header), whether the header names the record's type,
   * and its content exactly (the text between its header line and the next header
   * or banner line, trailing newlines aside).
   */
  structure(output, input) {
    const o = output as MemctxOutput;
    const inputRecords = (record(input, 'memctx input').records as Record<string, unknown>[]).map((rec) => {
      const success = pyTruthy((rec.metadata as Record<string, unknown> | null | undefined)?.success);
      return { success, type: typeLabel(rec.metadata, success) };
    });
    const byKind = [inputRecords.filter((x) => x.success), inputRecords.filter((x) => !x.success)].filter((b) => b.length > 0);
    type Item = { section: number; header: string; lines: string[] };
    const items: Item[] = [];
    let current: Item | null = null;
    let section = -1;
    let h = 0;
    let s = 0;
    for (const line of o.text.split('\n')) {
      if (s < o.sections.length && line === o.sections[s]) {
        section = s++;
        current = null;
      } else if (h < o.headers.length && line === o.headers[h]) {
        current = { section, header: line, lines: [] };
        items.push(current);
        h++;
      } else current?.lines.push(line);
    }
    return {
      buckets: o.buckets,
      sections: o.sections.length,
      items: items.map((it) => {
        const index = Number(/\d+/.exec(it.header)?.[0] ?? NaN);
        const rec = byKind[it.section]?.[index - 1];
        return { section: it.section, index, typeShown: rec ? it.header.includes(rec.type) : false, content: it.lines.join('\n').replace(/\n+$/, '') };
      }),
    };
  },
};

export function llbFidelityTargets(): FidelityTarget[] {
  return [dbParse, dbValidate, dbMd5, osParse, memctx];
}

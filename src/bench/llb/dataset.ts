/**
 * LifelongAgentBench data: JSON objects keyed by sample index strings, iterated in
 * string order ("0", "1", "10", ...) as the reference does. Accepted: the train/val
 * files (`db_train.json`, `os_interaction_val.json`, ...) and the
 * `*_runtime_learning_data.json` files. The reference's `*_data.json` files keep
 * nested fields as Python-repr strings; they are rejected with the usable names.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { UserError } from '../../util/errors.js';
import { llbFilePath } from './data-files.js';
import type { TaskBase } from '../../core/index.js';
import { causeOf, readUserFile } from '../../util/fs-errors.js';

export type LlbTaskKind = 'db' | 'os';

export interface DbColumn {
  name: string;
  type: string;
}

export interface DbTask extends TaskBase {
  kind: 'db';
  /** The sample index key as in the file. */
  index: string;
  instruction: string;
  table: { name: string; columns: DbColumn[]; rows: unknown[][] };
  answer: { direct: unknown[][] | null; md5: string | null; sql: string };
  skills: string[];
}

export interface OsTask extends TaskBase {
  kind: 'os';
  index: string;
  instruction: string;
  initScript: string | null;
  evalScript: string;
  groundTruthScript: string | null;
  skills: string[];
}

export type LlbTask = DbTask | OsTask;

/** The release's data files per task kind (memrl data pull llb). */
export const LLB_FILES = {
  db: { train: 'db_train.json', valid: 'db_val.json', runtime: 'db_bench_runtime_learning_data.json', repr: 'db_bench_data.json' },
  os: { train: 'os_interaction_train.json', valid: 'os_interaction_val.json', runtime: 'os_interaction_runtime_learning_data.json', repr: 'os_interaction_data.json' },
} as const;

/** The folder of the release's files a run reads (the cache's, else the mirror's). */
export function llbDataDir(): string {
  return dirname(llbFilePath(LLB_FILES.db.train));
}

export function defaultLlbFile(kind: LlbTaskKind, which: 'train' | 'valid' | 'runtime'): string {
  return llbFilePath(LLB_FILES[kind][which]);
}

function usableNames(kind: LlbTaskKind): string {
  const f = LLB_FILES[kind];
  return `${f.train}, ${f.valid} or ${f.runtime}`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v);
}

export interface LlbFile<T> {
  path: string;
  sha256: string;
  tasks: T[];
}

/** Reads one LLB file of `kind`; throws UserError naming the usable files on the Python-repr format. */
export function loadLlbFile(path: string, kind: 'db'): LlbFile<DbTask>;
export function loadLlbFile(path: string, kind: 'os'): LlbFile<OsTask>;
export function loadLlbFile(path: string, kind: LlbTaskKind): LlbFile<LlbTask>;
export function loadLlbFile(path: string, kind: LlbTaskKind): LlbFile<LlbTask> {
  if (!existsSync(path)) throw new UserError(`LLB data file not found: ${path} (usable files: ${usableNames(kind)}); \`memrl data pull llb\` fetches the release into the cache`, 'data_missing');
  const text = readUserFile(path, 'LLB data file', 'utf8');
  const sha256 = createHash('sha256').update(text).digest('hex');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${path}: not valid JSON (${causeOf(err)}); use ${usableNames(kind)}`);
  }
  if (!isObj(data)) throw new UserError(`${path}: expected a JSON object keyed by sample index; use ${usableNames(kind)}`);
  const keys = Object.keys(data).sort(); // string order, as the reference
  const tasks: LlbTask[] = [];
  for (const key of keys) {
    const e = data[key];
    if (!isObj(e)) throw new UserError(`${path}: entry "${key}" is not an object`);
    const nested = kind === 'db' ? ['table_info', 'answer_info'] : ['evaluation_info'];
    for (const field of nested) {
      if (typeof e[field] === 'string') {
        throw new UserError(
          `${basename(path)}: field "${field}" of entry "${key}" is a Python-repr string (the reference's *_data.json format, which the reference itself cannot load); use ${usableNames(kind)} from ${llbDataDir()}`,
        );
      }
    }
    tasks.push(kind === 'db' ? dbTask(path, key, e) : osTask(path, key, e));
  }
  return { path, sha256, tasks };
}

function dbTask(path: string, key: string, e: Record<string, unknown>): DbTask {
  const ti = e.table_info;
  const ai = e.answer_info;
  if (!isObj(ti) || !isObj(ai)) throw new UserError(`${path}: entry "${key}" lacks table_info / answer_info`);
  const columns = Array.isArray(ti.column_info_list) ? ti.column_info_list.map((c) => ({ name: str((c as DbColumn).name), type: str((c as DbColumn).type) || 'TEXT' })) : [];
  const instruction = str(e.instruction);
  return {
    kind: 'db',
    id: `db/${key}`,
    key: instruction,
    index: key,
    instruction,
    table: { name: str(ti.name), columns, rows: Array.isArray(ti.row_list) ? (ti.row_list as unknown[][]) : [] },
    answer: { direct: Array.isArray(ai.direct) ? (ai.direct as unknown[][]) : null, md5: typeof ai.md5 === 'string' ? ai.md5 : null, sql: str(ai.sql) },
    skills: Array.isArray(e.skill_list) ? e.skill_list.map(str) : [],
  };
}

function osTask(path: string, key: string, e: Record<string, unknown>): OsTask {
  const init = e.initialization_command_item;
  const ev = e.evaluation_info;
  if (!isObj(ev)) throw new UserError(`${path}: entry "${key}" lacks evaluation_info`);
  const script = (v: unknown): string | null => (isObj(v) && typeof v.script === 'string' ? v.script : null);
  const instruction = str(e.instruction);
  return {
    kind: 'os',
    id: `os/${key}`,
    key: instruction,
    index: key,
    instruction,
    initScript: script(init),
    evalScript: script(ev.evaluation_command_item) ?? '',
    groundTruthScript: script(ev.ground_truth_command_item),
    skills: Array.isArray(e.skill_list) ? e.skill_list.map(str) : [],
  };
}

/**
 * BigCodeBench's data files (docs/data.md says where each fact comes from).
 *
 * The tasks are release v0.1.0_hf, the one the project's copy holds and its results were
 * measured on: its tasks 37, 211, 215, 760, 1005 and 1006 read as before the fixes of
 * v0.1.1-v0.1.4, and the size of its strings as Arrow counts them is the num_bytes the
 * hub gives for its v0.1.0_hf split.
 * The hub serves each release as Parquet; memrl writes its rows back as the release's
 * JSON lines and checks those. The paper's splits come from the MemRL repository.
 */
import { fileOf, type DataFile, type DatasetDeclaration } from '../../data/manifest.js';

const HUB = 'https://huggingface.co/datasets/bigcode/bigcodebench/resolve/b74c0d0bf70d2c0bc459be537895cca163007f1a';
const MEMRL = 'https://raw.githubusercontent.com/MemTensor/MemRL/7c3beba1244d707b74207b494be254f391819e09';

/** The paper's splits, as the MemRL repository holds them at the commit memrl follows. */
const SPLITS_RELEASE = 'MemRL@7c3beba';

export const BCB_TASKS_FILE = 'bigcodebench/bigcodebench_full.jsonl.gz';
export const BCB_SPLIT_FILES = { full: 'bigcodebench/splits/full_seed123.json', hard: 'bigcodebench/splits/hard_seed42.json' } as const;
/** The embedded sample holds the first this-many train and validation tasks of the paper's split: the main job's. */
export const BCB_SAMPLE_LIMIT = 50;

const SAMPLE_WHAT = `the first ${BCB_SAMPLE_LIMIT} train and ${BCB_SAMPLE_LIMIT} validation tasks of the paper's split, for --limit ${BCB_SAMPLE_LIMIT} or less`;

export const BCB_DATA: DatasetDeclaration = {
  title: 'BigCodeBench',
  release: 'v0.1.0_hf',
  licence: 'Apache-2.0',
  homepage: 'https://huggingface.co/datasets/bigcode/bigcodebench',
  files: [
    {
      path: BCB_TASKS_FILE,
      url: `${HUB}/data/v0.1.0_hf-00000-of-00001.parquet`,
      from: {
        format: 'parquet',
        columns: ['task_id', 'complete_prompt', 'instruct_prompt', 'canonical_solution', 'code_prompt', 'test', 'entry_point', 'doc_struct', 'libs'],
      },
      sha256: '33baf4f414eb34507f1a8fd55ef9bcd79c1f9b4c3e8e2544f023edac1b20afec',
      size: 6965021,
      sample: { path: 'data/samples/bcb/main-job-tasks.jsonl.gz', what: SAMPLE_WHAT, release: 'v0.1.0_hf (embedded sample)' },
    },
    {
      path: BCB_SPLIT_FILES.full,
      url: `${MEMRL}/configs/bigcodebench/splits/full_seed123.json`,
      release: SPLITS_RELEASE,
      sha256: '63c96097cb2f49688d161965c1304b95fa374fdebda6546777cf4c86416772ae',
      size: 27528,
      sample: { path: 'data/samples/bcb/main-job-split.json', what: SAMPLE_WHAT, release: 'MemRL@7c3beba (embedded sample)' },
    },
    {
      path: BCB_SPLIT_FILES.hard,
      url: `${MEMRL}/configs/bigcodebench/splits/hard_seed42.json`,
      release: SPLITS_RELEASE,
      sha256: '67344c2e96734243edcd729453d2c16bb7dd1c26b9141b689cd8fc4652fecd51',
      size: 3696,
    },
  ],
};

/** One of BigCodeBench's files by its manifest path. */
export function bcbFile(path: string): DataFile {
  return fileOf({ name: 'bcb', ...BCB_DATA }, path);
}

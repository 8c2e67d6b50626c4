/**
 * Writes the embedded BigCodeBench sample under data/samples/bcb/: the tasks the main job
 * (`memrl run bcb --epochs 3 --limit 50`) reads, so it runs from the repository alone.
 *
 *   npx tsx scripts/make-bcb-sample.ts [<data folder>]     (default: ../shared/data)
 *
 * - main-job-tasks.jsonl.gz: the first LIMIT train and LIMIT validation tasks of the
 *   paper's split (full_seed123.json), their lines exactly as in the release file, in its
 *   order (BigCodeBench v0.1.0_hf, Apache-2.0; see data/samples/README.md).
 * - main-job-split.json: those ids in the split's order, the split file a sample run reads.
 *
 * The data folder's files must be the pinned release (their checksums are checked).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { BCB_DATA, BCB_SAMPLE_LIMIT, BCB_SPLIT_FILES, BCB_TASKS_FILE } from '../src/bench/bcb/data-files.js';
import { fileOf, type DatasetSpec } from '../src/data/manifest.js';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function main(): void {
  const root = resolve(process.argv[2] ?? join('..', 'shared', 'data'));
  const spec: DatasetSpec = { name: 'bcb', ...BCB_DATA };
  const tasksFile = fileOf(spec, BCB_TASKS_FILE);
  const splitFile = fileOf(spec, BCB_SPLIT_FILES.full);
  const text = gunzipSync(readFileSync(join(root, tasksFile.path)));
  const splitBytes = readFileSync(join(root, splitFile.path));
  if (sha256(text) !== tasksFile.sha256 || sha256(splitBytes) !== splitFile.sha256) throw new Error(`${root}: not the pinned BigCodeBench release (checksums differ)`);

  const split = JSON.parse(splitBytes.toString('utf8')) as { train_ids: string[]; val_ids: string[] };
  const train = split.train_ids.slice(0, BCB_SAMPLE_LIMIT);
  const valid = split.val_ids.slice(0, BCB_SAMPLE_LIMIT);
  const wanted = new Set([...train, ...valid]);
  const lines = text
    .toString('utf8')
    .split('\n')
    .filter((line) => line && wanted.has((JSON.parse(line) as { task_id: string }).task_id));
  if (lines.length !== wanted.size) throw new Error(`found ${lines.length} of the ${wanted.size} tasks`);

  const dir = join('data', 'samples', 'bcb');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main-job-tasks.jsonl.gz'), gzipSync(Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8'), { level: 9 }));
  const sampleSplit = {
    source: `the first ${BCB_SAMPLE_LIMIT} train and ${BCB_SAMPLE_LIMIT} validation ids of ${splitFile.path} (${splitFile.url})`,
    train_ids: train,
    val_ids: valid,
  };
  writeFileSync(join(dir, 'main-job-split.json'), `${JSON.stringify(sampleSplit, null, 2)}\n`);
  process.stdout.write(`wrote ${dir}/main-job-tasks.jsonl.gz (${lines.length} tasks) and ${dir}/main-job-split.json\n`);
}

if (process.argv[1]?.endsWith('make-bcb-sample.ts') || process.argv[1]?.endsWith('make-bcb-sample.js')) main();

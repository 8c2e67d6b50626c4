/**
 * The data side of a run: the registry's datasets (each benchmark module declares its
 * own), pulling a run's missing files first (`--pull`, `memrl.data.auto_pull`), and a
 * benchmark whose load() records which release each file is (run.json, the banner) and,
 * on --resume, refuses data other than the run started with.
 */
import type { Benchmark, BenchmarkModule, LoadedTasks, TaskBase } from '../core/benchmark.js';
import { describeSources, sourceLines, type DataSource } from '../data/identify.js';
import { locate } from '../data/locations.js';
import type { DatasetSpec } from '../data/manifest.js';
import { dataDifference } from '../data/same-data.js';
import { UserError } from '../util/errors.js';
import type { Registry } from './registry.js';

export function datasetOf(bench: BenchmarkModule): DatasetSpec | null {
  return bench.data ? { name: bench.name, ...bench.data } : null;
}

export function datasetsOf(registry: Registry): DatasetSpec[] {
  return registry.benchmarks.flatMap((b) => datasetOf(b) ?? []);
}

/** Pulls the files of `spec` that have no copy yet (cache or mirror); true when it fetched any. */
export async function pullMissing(spec: DatasetSpec, io: { err(text: string): void; tty: boolean }, signal?: AbortSignal): Promise<boolean> {
  if (spec.files.every((f) => locate(f))) return false;
  io.err(`--pull: fetching ${spec.title} ${spec.release} into the cache first\n`);
  // The downloader (undici) loads only when something is pulled.
  const { pullDataset } = await import('../data/pull.js');
  await pullDataset(spec, { err: (t) => io.err(t), tty: io.tty, ...(signal ? { signal } : {}) });
  return true;
}

export interface DataRecording {
  specs: readonly DatasetSpec[];
  /** The run folder being resumed, and the files its run.json records. */
  resume?: { dir: string; sources: readonly Pick<DataSource, 'path' | 'sha256' | 'contentSha256'>[] | undefined };
  /** Told the banner's lines about the files once they are loaded. */
  onDescribed(lines: string[]): void;
}

/** Makes `benchmark`'s load() describe its files and check them against the resumed run's (the same object, its load replaced). */
export function recordingData<T extends TaskBase>(benchmark: Benchmark<T>, rec: DataRecording): Benchmark<T> {
  const inner = benchmark.load.bind(benchmark);
  benchmark.load = async (): Promise<LoadedTasks<T>> => {
    const loaded = await inner();
    const sources = await describeSources(loaded.sources, rec.specs);
    const differs = rec.resume ? dataDifference(rec.resume.sources, sources) : null;
    if (differs) {
      const named = differs.wasPath ? `${differs.path} (the run read ${differs.wasPath})` : differs.path;
      throw new UserError(
        `--resume ${rec.resume!.dir}: ${named} is not the data the run started with (sha256 ${differs.was} in run.json, ${differs.now} now); restore that file, or start a new run`,
        'resume_data_differs',
      );
    }
    rec.onDescribed(sourceLines(sources, rec.specs));
    return { ...loaded, sources };
  };
  return benchmark;
}

/**
 * `memrl fidelity <dir>`: replays vector files recorded from the reference code
 * (../shared/fidelity/*.jsonl: a header line naming the target, then one
 * {"input", "output"} per line) through memrl's own functions, and counts agreement.
 *
 * Under a profile other than pure reference, a vector that differs is retried with
 * every switch at the reference's behaviour: if that agrees, the difference is by
 * design and is credited to the switch(es) whose single change reproduces it.
 * Only differences no switch explains fail the command.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { FidelityInputError, makeFidelity, type Fidelity, type FidelityProfileName, type FidelityTarget, type SwitchSetting } from '../core/index.js';
import { allFidelitySwitches } from '../config/resolve.js';
import { UserError, errorMessage } from '../util/errors.js';
import { isJsonObject } from '../util/json.js';
import type { Registry } from './registry.js';

export interface FidelityOptions {
  profile: FidelityProfileName;
  overrides?: Readonly<Record<string, SwitchSetting>>;
  /** A prompt pack's folder: its namespaces feed the targets, and `structure` targets compare exactly. */
  prompts?: string;
}

export interface VectorMismatch {
  line: number;
  input: unknown;
  expected: unknown;
  got: unknown;
  /** Switches whose memrl setting alone produces this difference (empty: unexplained). */
  explainedBy: string[];
}

export interface FileReport {
  file: string;
  target: string;
  compare: 'exact' | 'structure';
  total: number;
  agree: number;
  mismatches: VectorMismatch[];
}

interface Vector {
  line: number;
  input: unknown;
  output: unknown;
}

/** Every target the registry's benchmarks provide, by name. */
export async function fidelityTargets(registry: Registry): Promise<Map<string, FidelityTarget>> {
  const targets = new Map<string, FidelityTarget>();
  for (const b of registry.benchmarks) {
    for (const t of (await b.fidelityTargets?.()) ?? []) targets.set(t.name, t);
  }
  return targets;
}

/** The vector files of a folder (sorted), or the one file given. */
export function vectorFiles(path: string): string[] {
  if (!existsSync(path)) throw new UserError(`memrl fidelity ${path}: no such file or folder; give a folder of *.jsonl vector files (e.g. ../shared/fidelity)`, 'bad_input');
  if (statSync(path).isFile()) return [path];
  const files = readdirSync(path)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(path, f));
  if (files.length === 0) throw new UserError(`memrl fidelity ${path}: no *.jsonl vector files in this folder`, 'bad_input');
  return files;
}

function readVectors(file: string, targets: ReadonlyMap<string, FidelityTarget>): { target: FidelityTarget; vectors: Vector[] } {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  const parse = (text: string, n: number): unknown => {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new UserError(`${file}:${n}: not JSON (${errorMessage(err)}); each line is one JSON object`, 'bad_vectors');
    }
  };
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first === -1) throw new UserError(`${file}: empty; line 1 is a header {"target": ...}, then one {"input", "output"} per line`, 'bad_vectors');
  const header = parse(lines[first]!, first + 1) as { target?: unknown } | null;
  if (!header || typeof header !== 'object' || typeof header.target !== 'string') {
    throw new UserError(`${file}:${first + 1}: the first line must be a header naming the target, {"target": "<name>", ...}`, 'bad_vectors');
  }
  const target = targets.get(header.target);
  if (!target) {
    throw new UserError(`${file}:${first + 1}: memrl has no fidelity target '${header.target}'; known: ${[...targets.keys()].sort().join(', ')}`, 'unknown_target');
  }
  const vectors: Vector[] = [];
  for (let i = first + 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    const v = parse(lines[i]!, i + 1);
    if (!isJsonObject(v) || !('input' in v) || !('output' in v)) {
      throw new UserError(`${file}:${i + 1}: a vector is {"input": ..., "output": ...}`, 'bad_vectors');
    }
    vectors.push({ line: i + 1, input: v.input, output: v.output });
  }
  return { target, vectors };
}

/** memrl's output for a vector; an unexpected exception is an output too (it is compared, and shown). */
async function ours(target: FidelityTarget, v: Vector, fidelity: Fidelity, promptDir: string | undefined, file: string): Promise<unknown> {
  try {
    return await target.run(v.input, { fidelity, ...(promptDir ? { promptDir } : {}) });
  } catch (err) {
    if (err instanceof FidelityInputError) throw new UserError(`${file}:${v.line}: input does not fit target ${target.name}: ${err.message}`, 'bad_vectors');
    return { memrlThrew: errorMessage(err) };
  }
}

export async function checkFidelity(path: string, registry: Registry, options: FidelityOptions): Promise<FileReport[]> {
  const targets = await fidelityTargets(registry);
  const switches = allFidelitySwitches(registry);
  const known = new Set(switches.map((s) => s.id));
  for (const id of Object.keys(options.overrides ?? {})) {
    if (!known.has(id)) throw new UserError(`--fidelity-switch ${id}: unknown switch; known: ${[...known].sort().join(', ')}`, 'bad_input');
  }
  const fidelity = makeFidelity(options.profile, switches, options.overrides);
  const reference = makeFidelity('reference', switches);
  const exactWording = options.prompts !== undefined;
  const reports: FileReport[] = [];
  for (const file of vectorFiles(path)) {
    const { target, vectors } = readVectors(file, targets);
    const compare = exactWording ? 'exact' : target.compare;
    const view = (output: unknown, input: unknown): unknown => (compare === 'structure' && target.structure ? target.structure(output, input) : output);
    const agrees = (a: unknown, v: Vector): boolean => isDeepStrictEqual(view(a, v.input), view(v.output, v.input));
    const promptsFor = options.prompts;
    const report: FileReport = { file: basename(file), target: target.name, compare, total: vectors.length, agree: 0, mismatches: [] };
    for (const v of vectors) {
      const got = await ours(target, v, fidelity, promptsFor, file);
      if (agrees(got, v)) {
        report.agree++;
        continue;
      }
      const explainedBy: string[] = [];
      const changed = target.switches.filter((id) => fidelity.settings[id] === 'memrl');
      if (changed.length > 0 && agrees(await ours(target, v, reference, promptsFor, file), v)) {
        for (const id of changed) {
          const single = makeFidelity('reference', switches, { [id]: 'memrl' });
          if (!agrees(await ours(target, v, single, promptsFor, file), v)) explainedBy.push(id);
        }
        // Only the switches together make the difference: credit all of them.
        if (explainedBy.length === 0) explainedBy.push(...changed);
      }
      report.mismatches.push({ line: v.line, input: v.input, expected: view(v.output, v.input), got: view(got, v.input), explainedBy });
    }
    reports.push(report);
  }
  return reports;
}

/** Differences no switch explains: what makes `memrl fidelity` exit 1. */
export function unexplained(reports: readonly FileReport[]): VectorMismatch[] {
  return reports.flatMap((r) => r.mismatches.filter((m) => m.explainedBy.length === 0));
}

/**
 * Display names and the paper's ordering of methods and benchmarks in tables. Names
 * come from the registered modules, else from the run folders themselves (a plug-in's
 * run records its display names in run.json, so tables need not load the plug-in).
 * Unknown ids keep their own spelling and sort after the known ones.
 */
import { BUILTIN_BENCHMARKS, TABLE_ORDER } from '../bench/registry.js';
import type { RunJson } from '../core/run-files/index.js';
import { BUILTIN_METHODS } from '../methods/registry.js';

/** Spellings the paper's table (data/paper-results.json) uses for the same methods. */
const METHOD_ALIASES: Record<string, string> = { 'pass@k': 'Pass@k', selfrag: 'Self-RAG', 'self-rag': 'Self-RAG' };
/**
 * The paper's row order: the baselines without shared memory (no memory, then the two
 * that retry unsolved tasks), the memory baselines, then MemP and MemRL last.
 */
const METHOD_ORDER = ['none', 'passk', 'pass@k', 'reflection', 'rag', 'selfrag', 'self-rag', 'mem0', 'memp', 'memrl'];

/** Methods that retry only the tasks not solved yet: their "Last" counts the tasks solved in the final epoch alone. */
const RETRY_UNSOLVED = new Set(['passk', 'pass@k', 'reflection']);

export function retriesUnsolved(method: string): boolean {
  return RETRY_UNSOLVED.has(method);
}

const recorded = { benchmarks: new Map<string, string>(), methods: new Map<string, string>() };

/** Display names a run folder recorded (run.json benchmarkName / methodName). */
export function rememberNames(manifest: Pick<RunJson, 'benchmark' | 'benchmarkName' | 'method' | 'methodName'>): void {
  if (manifest.benchmarkName !== undefined) recorded.benchmarks.set(manifest.benchmark, manifest.benchmarkName);
  if (manifest.methodName !== undefined) recorded.methods.set(manifest.method, manifest.methodName);
}

/**
 * `name`, or `name (id)` when another known id has the same display name (two plug-ins
 * called "Arithmetic"): rows and columns are keyed by id, and their headers must tell
 * them apart too.
 */
function distinct(id: string, name: string, known: readonly { name: string; displayName: string }[], seen: ReadonlyMap<string, string>): string {
  const others = [...known.map((k) => [k.name, k.displayName] as const), ...seen].filter(([other, shown]) => other !== id && shown === name);
  return others.length ? `${name} (${id})` : name;
}

export function methodName(id: string): string {
  const own = BUILTIN_METHODS.find((m) => m.name === id)?.displayName ?? recorded.methods.get(id);
  return own ? distinct(id, own, BUILTIN_METHODS, recorded.methods) : (METHOD_ALIASES[id] ?? id);
}

/** A benchmark's display name; a variant column ('llb-db') reads as its benchmark's name and variant ('LLB db'). */
export function benchmarkName(id: string): string {
  const own = BUILTIN_BENCHMARKS.find((b) => b.name === id)?.displayName ?? recorded.benchmarks.get(id);
  if (own) return distinct(id, own, BUILTIN_BENCHMARKS, recorded.benchmarks);
  const [base, ...variant] = id.split('-');
  const baseName = variant.length ? (BUILTIN_BENCHMARKS.find((b) => b.name === base)?.displayName ?? recorded.benchmarks.get(base!)) : undefined;
  return baseName ? `${baseName} ${variant.join('-')}` : id;
}

/** The built-in benchmarks' short words for their settings in table labels (their modules' keys.labels). */
export function settingWords(): Record<string, string> {
  return Object.assign({}, ...BUILTIN_BENCHMARKS.map((b) => b.keys?.labels ?? {}));
}

/** The footnote of a run on a stand-in environment, naming the built-in benchmarks' stand-ins (their modules' standIn). */
export function standInNote(): string {
  const named = BUILTIN_BENCHMARKS.filter((b) => b.standIn).map((b) => `${b.displayName} stand-in environment (${b.standIn}), not the real ${b.displayName}`);
  return `${named.length ? named.join('; ') : 'stand-in environment'}: pipeline check, not a result.`;
}

/** The paper's figures on task similarity and the gain over no memory, by benchmark (their modules' paper), most similar first. */
export function paperSimilarityGains(): { name: string; similarity: number; gain: number }[] {
  return BUILTIN_BENCHMARKS.flatMap((b) => (b.paper ? [{ name: b.displayName, similarity: b.paper.taskSimilarity, gain: b.paper.gainOverNone }] : [])).sort((a, b) => b.similarity - a.similarity);
}

/** Known ids in the paper's order (a variant column sorts with its benchmark), then the others by name. */
function byOrder(order: readonly string[]): (a: string, b: string) => number {
  const rank = (x: string): number => {
    const i = order.indexOf(x);
    return i >= 0 ? i : order.indexOf(x.split('-')[0]!);
  };
  return (a, b) => {
    const ia = rank(a);
    const ib = rank(b);
    if (ia >= 0 && ia === ib) return a < b ? -1 : a > b ? 1 : 0;
    if (ia >= 0 && ib >= 0) return ia - ib;
    if (ia >= 0 || ib >= 0) return ia >= 0 ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
}

export const compareMethods = byOrder(METHOD_ORDER);
export const compareBenchmarks = byOrder(TABLE_ORDER);

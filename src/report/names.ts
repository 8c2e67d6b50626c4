/**
 * Display names and the paper's ordering of methods and benchmarks in tables. Names
 * come from the registered modules, else from the run folders themselves (a plug-in's
 * run records its display names in run.json, so tables need not load the plug-in).
 * Unknown ids keep their own spelling and sort after the known ones.
 */
import { BUILTIN_BENCHMARKS } from '../bench/registry.js';
import { BUILTIN_METHODS } from '../methods/registry.js';

/** Spellings the paper's table (data/paper-results.json) uses for the same methods. */
const METHOD_ALIASES: Record<string, string> = { 'pass@k': 'Pass@k', selfrag: 'Self-RAG', 'self-rag': 'Self-RAG' };
const METHOD_ORDER = ['none', 'rag', 'memp', 'memrl', 'reflection', 'passk', 'pass@k', 'selfrag', 'self-rag'];
const BENCHMARK_ORDER = ['hle', 'bcb', 'alfworld', 'llb'];

const recorded = { benchmarks: new Map<string, string>(), methods: new Map<string, string>() };

/** Display names a run folder recorded (run.json benchmarkName / methodName). */
export function rememberNames(manifest: Record<string, unknown>): void {
  if (typeof manifest.benchmark === 'string' && typeof manifest.benchmarkName === 'string') recorded.benchmarks.set(manifest.benchmark, manifest.benchmarkName);
  if (typeof manifest.method === 'string' && typeof manifest.methodName === 'string') recorded.methods.set(manifest.method, manifest.methodName);
}

export function methodName(id: string): string {
  return BUILTIN_METHODS.find((m) => m.name === id)?.displayName ?? METHOD_ALIASES[id] ?? recorded.methods.get(id) ?? id;
}

export function benchmarkName(id: string): string {
  return BUILTIN_BENCHMARKS.find((b) => b.name === id)?.displayName ?? recorded.benchmarks.get(id) ?? id;
}

function byOrder(order: readonly string[]): (a: string, b: string) => number {
  return (a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    if (ia >= 0 && ib >= 0) return ia - ib;
    if (ia >= 0 || ib >= 0) return ia >= 0 ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
}

export const compareMethods = byOrder(METHOD_ORDER);
export const compareBenchmarks = byOrder(BENCHMARK_ORDER);

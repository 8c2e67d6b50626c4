/**
 * The plug-in boundary: every benchmark or method a plug-in module exports is checked
 * against its contract's schema when it is loaded, and registered behind a guard that
 * checks what it returns as it runs (benchmark.ts, method.ts). A run attaches its log
 * and its stop to the benchmark it created (observePlugin), so a violation inside an
 * episode stops the run with exit 2 instead of becoming one more error row.
 */
import type { z } from 'zod';
import { benchmarkModuleSchema, type BenchmarkModule } from '../../core/benchmark.js';
import { methodModuleSchema, type MethodModule } from '../../core/method.js';
import { guardBenchmarkModule } from './benchmark.js';
import { siteOf, type GuardEvents } from './guard.js';
import { guardMethodModule } from './method.js';
import { violation, type ContractViolation } from './violation.js';

export { ContractViolation, PluginCrash } from './violation.js';
export type { GuardEvents } from './guard.js';

type Entry = BenchmarkModule | MethodModule;

/** How messages name an export: its name when it has a usable one, else where it was found. */
function entryLabel(value: Record<string, unknown>, kind: string, where: string): string {
  return typeof value.name === 'string' && value.name ? `${kind} "${value.name}"` : `${kind} (export ${where})`;
}

/** The export checked against its module contract; a violation names the plug-in, the entry and the field. */
export function checkExport(value: Record<string, unknown>, origin: string, where: string): ContractViolation | undefined {
  const kind = value.kind as 'benchmark' | 'method';
  const schema: z.ZodTypeAny = kind === 'benchmark' ? benchmarkModuleSchema : methodModuleSchema;
  const result = schema.safeParse(value);
  return result.success ? undefined : violation({ origin, entry: entryLabel(value, kind, where) }, { where: '', what: 'export' }, result.error, schema);
}

/** The entry behind its guard (register this, not the plug-in's own object). */
export function guardEntry(entry: Entry, origin: string): Entry {
  const who = { origin, entry: `${entry.kind} "${entry.name}"` };
  return entry.kind === 'benchmark' ? guardBenchmarkModule(entry, who) : guardMethodModule(entry, who);
}

/** Attaches a run's log and listeners to the benchmark a plug-in created for it (nothing for a built-in). */
export function observePlugin(created: unknown, events: GuardEvents): boolean {
  const site = siteOf(created);
  if (!site) return false;
  Object.assign(site.events, events);
  return true;
}

/** `memrl config --explain`: every key with its type, default for a benchmark and meaning. */
import { INERT_KEYS, scopeOf } from './key-notes.js';
import { schemaFor } from './load.js';
import { descriptionOf, schemaLeaves, typeLabel } from './schema-walk.js';
import { allFidelitySwitches } from './resolve.js';
import type { ConfigRegistry, ConfigTree } from './types.js';

export interface KeyInfo {
  key: string;
  type: string;
  /** Default for the benchmark (its defaults layer over the schema's). */
  default: unknown;
  description: string;
  inert: boolean;
  /** Benchmarks that read it; null = all. */
  scope: readonly string[] | null;
}

export function describeKeys(registry: ConfigRegistry, benchmark: string): KeyInfo[] {
  const schema = schemaFor(registry);
  const part = registry.benchmarks.find((b) => b.name === benchmark);
  const defaults = schema.parse(part?.defaults ?? {}) as ConfigTree;
  return schemaLeaves(schema).map(({ path, schema: leaf }) => ({
    key: path,
    type: typeLabel(leaf),
    default: path.split('.').reduce<unknown>((node, k) => (node as ConfigTree | undefined)?.[k], defaults),
    description: descriptionOf(leaf) ?? '',
    inert: path in INERT_KEYS,
    scope: scopeOf(path, registry.benchmarks),
  }));
}

export function explainText(registry: ConfigRegistry, benchmark: string): string {
  const lines = [`# memrl config keys (defaults shown for ${benchmark}; a YAML file overrides them, flags override the file)`, ''];
  let section = '';
  for (const info of describeKeys(registry, benchmark)) {
    const top = info.key.includes('.') ? info.key.split('.').slice(0, info.key.startsWith('memrl.') ? 2 : 1).join('.') : '(top level)';
    if (top !== section) {
      section = top;
      lines.push(`[${section}]`);
    }
    const tags = [info.inert ? 'inert' : '', info.scope ? `only ${info.scope.join('/')}` : ''].filter(Boolean).join(', ');
    lines.push(`  ${info.key}  (${info.type}; default ${JSON.stringify(info.default)})${tags ? ` [${tags}]` : ''}`);
    if (info.description) lines.push(`      ${info.description}`);
  }
  // This benchmark's switches, the memory writer's and every method's (other benchmarks' would not apply).
  const others = new Set(registry.benchmarks.filter((b) => b.name !== benchmark).flatMap((b) => (b.fidelitySwitches ?? []).map((sw) => sw.id)));
  const switches = allFidelitySwitches(registry).filter((sw) => !others.has(sw.id));
  if (switches.length) {
    lines.push('', `[fidelity switches for ${benchmark}] (memrl.fidelity_switches.<id>: reference | memrl; profile reference: all reference; fixed: bug switches memrl)`);
    for (const sw of switches) {
      lines.push(`  ${sw.id}  (${sw.class}; ${sw.source})`, `      reference: ${sw.reference}`, `      memrl:     ${sw.memrl}`);
    }
  }
  return lines.join('\n') + '\n';
}

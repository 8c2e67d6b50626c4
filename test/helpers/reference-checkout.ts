/**
 * A MemRL-like Python tree made from memrl's own location tables: every string the
 * tables point at is bound, where they say, to our own text ("synthetic <locator>")
 * carrying the mapped fields. `memrl prompts import` reads it as it reads a real
 * checkout, so tests get a pack in the reference's layout without the reference's text.
 */
import type { PromptNamespace } from '../../src/app/prompts/pack.js';
import type { ReferencePrompt } from '../../src/core/index.js';

/** Python source (path → text) that binds each locator of the tables to our own text carrying the mapped fields. */
export function syntheticCheckout(spaces: readonly PromptNamespace[]): Record<string, string> {
  interface Scope {
    assigns: Map<string, string>;
    literals: number;
    children: Map<string, Scope>;
    kind: 'module' | 'class' | 'def';
  }
  const newScope = (kind: Scope['kind']): Scope => ({ assigns: new Map(), literals: 0, children: new Map(), kind });
  const files = new Map<string, Scope>();
  const literal = (spec: ReferencePrompt, tag: string): string => {
    const fields = Object.keys(spec.fields ?? {});
    const body = `synthetic ${tag} ` + fields.map((f) => `{${f}}`).join(' ');
    return spec.format || fields.length === 0 ? JSON.stringify(body) : `f${JSON.stringify(body)}`;
  };
  for (const space of spaces) {
    for (const spec of space.reference) {
      for (const loc of spec.from) {
        if (/^\{\{.*\}\}$/.test(loc)) continue; // one of memrl's placeholders, not a location
        const [path, name] = loc.split(/:(.*)/s) as [string, string];
        const module = files.get(path) ?? newScope('module');
        files.set(path, module);
        const descend = (dotted: string, leafKind: Scope['kind']): Scope => {
          let node = module;
          const parts = dotted.split('.').filter(Boolean);
          parts.forEach((p, i) => {
            const kind = i === parts.length - 1 ? leafKind : node === module ? 'class' : 'def';
            const child = node.children.get(p) ?? newScope(kind);
            node.children.set(p, child);
            node = child;
          });
          return node;
        };
        if (name.includes('@')) {
          const [scope, n] = name.split('@') as [string, string];
          const fn = descend(scope, 'def');
          fn.literals = Math.max(fn.literals, Number(n));
          fn.assigns.set(`__literal_${n}`, literal(spec, loc));
        } else if (name.includes(':')) {
          const [scope, target] = name.split(':') as [string, string];
          descend(scope, 'def').assigns.set(target, literal(spec, loc));
        } else {
          const dot = name.lastIndexOf('.');
          const holder = dot < 0 ? module : descend(name.slice(0, dot), 'class');
          holder.assigns.set(name.slice(dot + 1), literal(spec, loc));
        }
      }
    }
  }
  const emit = (scope: Scope, indent: string): string[] => {
    const lines: string[] = [];
    if (scope.kind === 'def' && scope.literals > 0) {
      // Literals in order: the n-th one carries the mapped text, the others filler.
      for (let n = 1; n <= scope.literals; n++) lines.push(`${indent}_l${n} = ${scope.assigns.get(`__literal_${n}`) ?? JSON.stringify(`filler ${n}`)}`);
    }
    for (const [target, value] of scope.assigns) if (!target.startsWith('__literal_')) lines.push(`${indent}${target} = ${value}`);
    for (const [name, child] of scope.children) {
      lines.push(child.kind === 'class' ? `${indent}class ${name}:` : `${indent}def ${name}(self=None, *args, **kwargs):`);
      const inner = emit(child, `${indent}    `);
      lines.push(...(inner.length ? inner : [`${indent}    pass`]));
    }
    return lines;
  };
  const out: Record<string, string> = { 'memrl/__init__.py': '' };
  for (const [path, scope] of files) out[path] = emit(scope, '').join('\n') + '\n';
  return out;
}


/**
 * Module hooks for plug-ins (registered by plugins.ts with node:module's register, so
 * they run on Node's hooks thread; this file imports nothing).
 *
 * - `import ... from 'memrl'` (and 'memrl/app') in a plug-in links the memrl that is
 *   running, wherever the plug-in's folder is and whatever memrl it installed: one
 *   EpisodeFault class, one zod, the contracts the runner checks against. A folder that
 *   installed memrl (for its types and tests) and one that did not behave the same.
 * - A TypeScript file outside node_modules is an ES module, whatever its package.json
 *   says: a plug-in written with `import`/`export` in a folder without `"type":
 *   "module"` would otherwise be compiled to CommonJS and fail to load.
 */
interface Targets {
  /** Specifier → URL of the running memrl's module. */
  targets: Record<string, string>;
}

interface ResolveContext {
  conditions: string[];
  parentURL?: string;
}
interface Resolved {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<Resolved>;

let targets: Record<string, string> = {};

export function initialize(data: Targets): void {
  targets = data.targets;
}

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<Resolved> {
  const own = targets[specifier];
  if (own) return { url: own, format: 'module', shortCircuit: true };
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:') && /\.tsx?$/.test(resolved.url) && !resolved.url.includes('/node_modules/') && resolved.format !== 'module') {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}

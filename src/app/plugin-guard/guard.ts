/**
 * A plug-in object seen through its contract: a Proxy that checks, against the
 * contract's schema, what each of its functions returns (awaiting promises) and each
 * data field as it is read (a method's `size` is a getter), and turns an exception of
 * the plug-in's own into a PluginCrash naming the function. Functions run on the
 * plug-in's own object (`this` is never the proxy), so private fields and classes work.
 *
 * What a schema cannot say (a relation between arguments and results, a wrapper for
 * what memrl passes in) is a Rule for that function, written where the contract is
 * guarded (benchmark.ts, method.ts).
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { metaOf } from '../../util/contract-schema.js';
import { unwrapField } from '../../util/contract-text.js';
import { MemrlError } from '../../util/errors.js';
import { crash, violation, type Culprit, type ContractViolation } from './violation.js';

/** Who hears about a plug-in's faults during a run (start-run attaches these). */
export interface GuardEvents {
  /** The run's logger: a crash's stack goes to log.jsonl. */
  log?: Logger;
  /** A violation, as it is found: it may be inside an episode, whose errors the runner keeps as rows. */
  violation?(err: ContractViolation): void;
  /** The plug-in's own exception, with its stack (printed with --verbose). */
  crashed?(err: unknown, where: string): void;
}

export interface Site {
  who: Culprit;
  events: GuardEvents;
}

export interface Rule {
  /** Where this call's faults are reported, if not the object's site (a method's create: its context has the run's logger). */
  site?(args: readonly unknown[]): Site;
  /** How the call is named in messages (default `name()`). */
  label?(args: readonly unknown[]): string;
  /** The arguments the plug-in's function gets (e.g. the context with a checked model). */
  before?(args: unknown[], label: string): unknown[];
  /** What the caller gets, from the checked result (e.g. a guarded object, tasks cut to --limit). */
  after?(value: unknown, args: readonly unknown[], label: string): unknown;
  /** Let the plug-in's own exception through unchanged, after logging it (episodes: the runner makes it an error row). */
  rethrowCrash?: boolean;
}

const SITE = Symbol('memrl.plugin-site');

/** The site of a guarded object (undefined for anything else, e.g. a built-in benchmark). */
export function siteOf(value: unknown): Site | undefined {
  return value !== null && typeof value === 'object' ? ((value as Record<symbol, unknown>)[SITE] as Site | undefined) : undefined;
}

/** Reports a violation to the run and returns it, to be thrown. */
export function report(site: Site, err: ContractViolation): ContractViolation {
  site.events.log?.error({ event: 'plugin_contract', plugin: site.who.origin, err: err.message }, 'plug-in broke its contract');
  site.events.violation?.(err);
  return err;
}

/** Checks `value` against `schema` (the part of a contract a function returns or a field holds); throws a reported violation. */
export function check<T>(site: Site, schema: z.ZodTypeAny, value: T, where: string, what: 'returned' | 'passed' | 'read'): T {
  const result = schema.safeParse(value);
  if (!result.success) throw report(site, violation(site.who, { where, what }, result.error, schema));
  return value;
}

/** The plug-in's exception, logged with its stack; a MemrlError (UserError, EpisodeFault) is the plug-in's own message and goes through. */
export function crashed(site: Site, where: string, err: unknown): unknown {
  if (err instanceof MemrlError) return err;
  const stack = err instanceof Error ? err.stack : String(err);
  site.events.log?.error({ event: 'plugin_crashed', plugin: site.who.origin, where, stack }, 'plug-in threw');
  site.events.crashed?.(err, where);
  return crash(site.who, where, err);
}

const isThenable = (v: unknown): v is PromiseLike<unknown> => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';

/** What a function's result is checked against, and whether it may be a promise. */
function resultSchema(returns: z.ZodTypeAny): { schema: z.ZodTypeAny; async: boolean } {
  if (returns instanceof z.ZodPromise) return { schema: returns._def.type as z.ZodTypeAny, async: true };
  if (returns instanceof z.ZodUnion && returns._def.options.length === 2 && returns._def.options[0] instanceof z.ZodPromise) return { schema: returns._def.options[1] as z.ZodTypeAny, async: true };
  return { schema: returns, async: false };
}

export function guarded<T extends object>(target: T, contract: z.ZodTypeAny, site: Site, rules: Readonly<Record<string, Rule>> = {}): T {
  let object = contract;
  while (object instanceof z.ZodEffects) object = object._def.schema as z.ZodTypeAny;
  const shape = (object as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
  const wrappers = new Map<string, { f: unknown; wrapper: unknown }>();

  const wrap = (key: string, f: (...args: unknown[]) => unknown, returns: z.ZodTypeAny): unknown => {
    const rule = rules[key] ?? {};
    const result = resultSchema(returns);
    return (...args: unknown[]): unknown => {
      const label = rule.label?.(args) ?? `${key}()`;
      const at = rule.site?.(args) ?? site;
      const finish = (value: unknown): unknown => {
        check(at, result.schema, value, label, 'returned');
        return rule.after ? rule.after(value, args, label) : value;
      };
      const fail = (err: unknown): never => {
        if (err instanceof MemrlError && err.code === 'plugin_contract') throw err;
        const out = crashed(at, label, err);
        throw rule.rethrowCrash ? err : out;
      };
      let out: unknown;
      try {
        out = Reflect.apply(f, target, rule.before ? rule.before(args, label) : args);
      } catch (err) {
        return fail(err);
      }
      // A function that may be async may also answer at once: the caller gets a promise either way.
      if (isThenable(out)) {
        if (!result.async) throw report(at, violation(at.who, { where: label, what: 'returned' }, new z.ZodError([{ code: 'custom', path: [], message: 'is a promise where a value is expected (make it synchronous)' }]), returns));
        return Promise.resolve(out).then(finish, fail);
      }
      return result.async ? Promise.resolve().then(() => finish(out)) : finish(out);
    };
  };

  return new Proxy(target, {
    get(t, key) {
      if (key === SITE) return site;
      const value: unknown = Reflect.get(t, key, t);
      const field = typeof key === 'string' && Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (!field) return value;
      const meta = metaOf(unwrapField(field));
      if (meta.params && meta.returns) {
        if (typeof value !== 'function') return value;
        let known = wrappers.get(key as string);
        if (known?.f !== value) wrappers.set(key as string, (known = { f: value, wrapper: wrap(key as string, value as (...args: unknown[]) => unknown, meta.returns) }));
        return known.wrapper;
      }
      return check(site, field, value, String(key), 'read');
    },
  });
}

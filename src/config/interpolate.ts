/**
 * `${VAR}` and `${VAR:-default}` in string values of a config file.
 *
 * `${VAR}` needs VAR to be set (it may be empty); `${VAR:-text}` uses text when VAR
 * is unset or empty (the shell's rule); `$${` writes a literal `${`. Only values are
 * interpolated, never keys. A value that is a single `${...}` still goes through
 * schema coercion, so `k_retrieve: ${K}` with K=5 gives the number 5.
 */
import type { ConfigTree, KeyPath } from './yaml-source.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface InterpolationProblem {
  path: KeyPath;
  message: string;
  /** unset: a ${VAR} whose variable is not set (only a note while inspecting); malformed: bad syntax. */
  kind: 'unset' | 'malformed';
}

const TOKEN = /\$\$\{|\$\{([^{}]*)\}/g;
const EXPR = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

/**
 * Returns a copy of `data` with variables substituted, plus the problems found
 * (missing variables, malformed expressions). Missing variables become ''.
 */
export function interpolateEnv(data: unknown, env: Env): { value: unknown; problems: InterpolationProblem[] } {
  const problems: InterpolationProblem[] = [];
  const walk = (value: unknown, path: KeyPath): unknown => {
    if (typeof value === 'string') return interpolateString(value, env, path, problems);
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i]));
    if (value !== null && typeof value === 'object') {
      const out: ConfigTree = {};
      for (const [key, child] of Object.entries(value)) out[key] = walk(child, [...path, key]);
      return out;
    }
    return value;
  };
  return { value: walk(data, []), problems };
}

function interpolateString(text: string, env: Env, path: KeyPath, problems: InterpolationProblem[]): string {
  if (!text.includes('${')) return text;
  return text.replace(TOKEN, (match, inner: string | undefined) => {
    if (match === '$${') return '${';
    const expr = EXPR.exec(inner ?? '');
    if (!expr) {
      problems.push({ path, kind: 'malformed', message: `malformed \`${match}\` (expected \${NAME} or \${NAME:-default}; write $\${ for a literal \${)` });
      return match;
    }
    const [, name, fallback] = expr as unknown as [string, string, string | undefined];
    const set = env[name];
    if (fallback !== undefined) return set === undefined || set === '' ? fallback : set;
    if (set === undefined) {
      problems.push({ path, kind: 'unset', message: `environment variable ${name} is not set; export it, or write \${${name}:-default}` });
      return '';
    }
    return set;
  });
}

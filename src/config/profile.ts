/**
 * Run profiles (`--profile paper`, `memrl.profile: paper`): a setting in one step, as a
 * config layer. Its place in the precedence is
 *
 *   schema defaults < the benchmark's defaults < the profile < the YAML file < flags
 *
 * so a file or a flag still changes what the user asks for (a reference YAML then runs
 * its own model), and every key the file or a flag moves away from the profile is
 * listed as not matched, with where it was set. A profile has a common part (here)
 * and a part per benchmark (its config part's `profiles`): a benchmark the profile
 * does not know gets the common part and a line saying so.
 *
 * The paper profile's prompts are the pack `memrl prompts import` writes by default
 * (referencePackDir): a pack in that folder is used; without one the run sends memrl's
 * own wording and says which command imports the reference's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Env } from './interpolate.js';
import type { RunProfile } from './profile-names.js';
import type { BenchmarkConfigPart, ConfigLayer } from './types.js';
import type { KeyPath } from './yaml-source.js';

/** The file that makes a folder a prompt pack (app/prompts/pack.ts writes it). */
const PACK_FILE = 'pack.json';
/** The name `memrl prompts import` gives the packs it writes. */
export const REFERENCE_PACK_NAME = 'memrl-reference';

/** The command that fills the default pack folder, for the one line a missing pack gets. */
export const IMPORT_PACK_COMMAND = 'memrl prompts import <MemRL checkout>';

/**
 * Where `memrl prompts import` puts the reference's pack by default and where the paper
 * profile looks for it: $MEMRL_PROMPTS_DIR, else the XDG cache beside the data
 * ($XDG_CACHE_HOME/memrl/prompts/reference, else ~/.cache/memrl/prompts/reference).
 */
export function referencePackDir(env: Env = process.env): string {
  if (env.MEMRL_PROMPTS_DIR) return resolve(env.MEMRL_PROMPTS_DIR);
  const cache = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache');
  return join(cache, 'memrl', 'prompts', 'reference');
}

/** The name a pack folder gives itself (pack.json), or null when it is no pack. */
function packName(dir: string): string | null {
  const file = join(dir, PACK_FILE);
  if (!existsSync(file)) return null;
  try {
    const name = (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name;
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

export interface ProfileLayers {
  name: RunProfile;
  /** The profile's layers, lowest first: the common part, then the benchmark's. */
  layers: ConfigLayer[];
  /** What cannot be matched whatever the file says (a benchmark the profile does not know). */
  unmatched: string[];
  /** The default pack folder, and whether a pack is there. */
  pack: { dir: string; present: boolean };
}

/** The paper profile's part for every benchmark: the reference's endpoints, its fidelity and its prompts. */
function commonLayer(name: RunProfile, pack: { dir: string; present: boolean }): ConfigLayer {
  switch (name) {
    case 'paper':
      return {
        // The endpoints: $OPENAI_BASE_URL, else OpenAI's (the reference's placeholder BASEURL rule); where is not the setting.
        llm: { provider: 'openai', base_url: null },
        embedding: { provider: 'openai', base_url: null, model: 'text-embedding-3-large' },
        memrl: { fidelity: 'reference', ...(pack.present ? { prompts: pack.dir } : {}) },
      };
  }
}

export function profileLayers(name: RunProfile, part: BenchmarkConfigPart, env: Env): ProfileLayers {
  const dir = referencePackDir(env);
  const pack = { dir, present: packName(dir) !== null };
  const own = part.profiles?.[name];
  const unmatched = own ? [] : [`${part.name} is not a benchmark of the paper: only the profile's common settings apply (reference fidelity, OpenAI endpoints, the reference prompts)`];
  return { name, layers: [commonLayer(name, pack), ...(own ? [own] : [])], unmatched, pack };
}

/** A tree's leaves as [path, value] (lists and nulls are leaves). */
function leaves(node: unknown, path: string[] = []): [string[], unknown][] {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [[path, node]];
  return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) => leaves(v, [...path, k]));
}

function valueAt(tree: unknown, path: readonly string[]): unknown {
  let node = tree;
  for (const key of path) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/** Keys of a profile layer that are no part of the setting compared: the endpoints (where, not what), and the prompts (said by the pack in use). */
const UNCOMPARED = new Set(['llm.base_url', 'embedding.base_url', 'memrl.prompts']);

const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * Everything of the profile this resolved tree does not match: the keys the file or a
 * flag set to another value (with where), switches moved off the reference, and the
 * prompts when no reference pack is in use. One line each.
 */
export function profileGaps(profile: ProfileLayers, tree: { memrl: { prompts: string | null; fidelity_switches: Record<string, string> } }, where: (path: KeyPath) => string, cwd: string): string[] {
  const gaps = [...profile.unmatched];
  const wanted = new Map<string, { path: string[]; value: unknown }>();
  for (const layer of profile.layers) for (const [path, value] of leaves(layer)) wanted.set(path.join('.'), { path, value });
  for (const [key, { path, value }] of wanted) {
    if (UNCOMPARED.has(key)) continue;
    const now = valueAt(tree, path);
    if (JSON.stringify(now) !== JSON.stringify(value)) gaps.push(`${key} is ${show(now)} (${where(path)}) where the paper uses ${show(value)}`);
  }
  for (const [id, setting] of Object.entries(tree.memrl.fidelity_switches)) {
    if (setting !== 'reference') gaps.push(`fidelity switch ${id} is ${setting} (${where(['memrl', 'fidelity_switches', id])}) where the paper runs the reference's behaviour`);
  }
  const prompts = tree.memrl.prompts;
  if (prompts === null) {
    gaps.push(
      profile.pack.present
        ? `memrl.prompts is null (${where(['memrl', 'prompts'])}): memrl's own wording is sent, not the reference pack in ${profile.pack.dir}`
        : `prompts: no reference pack imported (looked in ${profile.pack.dir}): memrl's own wording is sent; \`${IMPORT_PACK_COMMAND}\` (or \`memrl prompts import --fetch\`) writes it there`,
    );
  } else if (packName(resolve(cwd, prompts)) !== REFERENCE_PACK_NAME) {
    gaps.push(`memrl.prompts ${prompts} (${where(['memrl', 'prompts'])}) is not a pack imported from the reference (its pack.json does not say ${REFERENCE_PACK_NAME})`);
  }
  return gaps;
}

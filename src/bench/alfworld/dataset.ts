/**
 * ALFWorld games as memrl tasks: the train split and one validation split, listed
 * through the bridge. A task's retrieval key is its task description: the first
 * observation without the welcome banner (the room and the task sentence).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../util/paths.js';
import { UserError } from '../../util/errors.js';
import { Rng } from '../../util/rng.js';
import type { LoadedTasks, TaskBase } from '../../core/index.js';
import { BridgeRequestError, type BridgeClient, type GameInfo } from './bridge-client.js';
import { causeOf } from '../../util/fs-errors.js';

export const TASK_TYPES = [
  'pick_and_place',
  'pick_clean_then_place',
  'pick_heat_then_place',
  'pick_cool_then_place',
  'look_at_obj_in_light',
  'pick_two_obj',
] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** Task type → the `task` name of its example in alfworld_examples.json (the ReAct paper's names). */
export const EXAMPLE_FOR: Record<TaskType, string> = {
  pick_and_place: 'put',
  pick_clean_then_place: 'clean',
  pick_heat_then_place: 'heat',
  pick_cool_then_place: 'cool',
  look_at_obj_in_light: 'examine',
  pick_two_obj: 'puttwo',
};

export type AlfworldSplit = 'train' | 'valid_seen' | 'valid_unseen';

export interface AlfworldTask extends TaskBase {
  split: AlfworldSplit;
  /** Index of the game in its split (what `reset` takes). */
  index: number;
  gameFile: string;
  taskType: string;
  /** The first observation, banner included (the model sees taskDescription() of it). */
  observation: string;
}

export interface ExampleMessage {
  role: 'user' | 'assistant';
  content: string;
}

export type FewShotExamples = Record<string, ExampleMessage[]>;

/**
 * The task description the agent and the memory see: the first observation without its
 * first paragraph (TextWorld's "-= Welcome to TextWorld, ALFRED! =-" banner), paragraphs
 * joined by single newlines, as the reference's runner cuts it
 * (alfworld_rl_runner.py:AlfworldRunner._sample_from_batch).
 */
export function taskDescription(observation: string): string {
  return observation.split('\n\n').slice(1).join('\n');
}

/** Reads the examples file: a list of {task, example: [messages]}; every task type must have one. */
export function loadExamples(path: string): FewShotExamples {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UserError(`few-shot examples ${path}: cannot read it (${causeOf(err)}); set experiment.few_shot_path`);
  }
  if (!Array.isArray(data)) throw new UserError(`few-shot examples ${path}: expected a list of {task, example}`);
  const out: FewShotExamples = {};
  for (const e of data as { task?: unknown; example?: unknown }[]) {
    if (typeof e?.task !== 'string' || !Array.isArray(e.example)) throw new UserError(`few-shot examples ${path}: every entry needs task and example`);
    out[e.task] = (e.example as ExampleMessage[]).filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string');
  }
  for (const t of TASK_TYPES) {
    if (!out[EXAMPLE_FOR[t]]) throw new UserError(`few-shot examples ${path}: no example for task "${EXAMPLE_FOR[t]}" (${t})`);
  }
  return out;
}

export interface AlfworldLoadOptions {
  validSplit: 'valid_seen' | 'valid_unseen';
  /** Load validation games (only when the run validates). */
  validate: boolean;
  gameFile: string | null;
  datasetRatio: number;
  seed: number;
  limit?: number | null;
  envLabel: string;
  /**
   * Real ALFWorld only: where game listings (each game's first observation) are
   * cached; null = no cache. Default: $XDG_CACHE_HOME/memrl/alfworld-games.
   */
  listingCache?: string | null;
  /** What else decides a game's first observation (env type, env config, image): part of the cache key. */
  listingIdentity?: unknown;
}

export function defaultListingCache(): string {
  return cacheDir('alfworld-games');
}

function taskId(split: AlfworldSplit, gameFile: string): string {
  const rel = gameFile.replace(/\\/g, '/').replace(/^.*?json_2\.1\.1\//, '').replace(/\/game\.tw-pddl$/, '');
  return rel.startsWith('standin/') ? rel.slice('standin/'.length) : rel.startsWith(`${split}/`) ? rel : `${split}/${rel}`;
}

function toTask(split: AlfworldSplit, g: GameInfo): AlfworldTask {
  const observation = g.observation ?? '';
  return { id: taskId(split, g.game_file), key: taskDescription(observation), split, index: g.index, gameFile: g.game_file, taskType: g.task_type, observation };
}

/** A seeded sample of `ratio` of the items, in their original order. */
function sample<T>(items: T[], ratio: number, seed: number): T[] {
  if (ratio >= 1) return items;
  // int(n * ratio), as the reference counts them (at least one game).
  const n = Math.max(1, Math.floor(items.length * ratio));
  const rng = new Rng(`alfworld-dataset:${seed}`);
  const idx = items.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [idx[i], idx[j]] = [idx[j] as number, idx[i] as number];
  }
  return idx.slice(0, n).sort((a, b) => a - b).map((i) => items[i] as T);
}

/**
 * Listing real ALFWorld games resets each game once to read its first observation:
 * minutes to an hour on the train split. The observations are cached under a key of
 * the split's game files, the alfworld version and the listing identity; the cheap
 * listing (no observations) decides whether the cache still matches.
 */
async function listCached(bridge: BridgeClient, split: AlfworldSplit, dir: string, identity: unknown): Promise<GameInfo[]> {
  const bare = (await bridge.listGames(split, false)).games;
  const key = createHash('sha256')
    .update(JSON.stringify({ split, envVersion: bridge.envVersion, identity, files: bare.map((g) => g.game_file) }))
    .digest('hex');
  const path = join(dir, `${split}-${key.slice(0, 24)}.json`);
  let cached: Record<string, unknown> = {};
  try {
    cached = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    // no cache yet, or unreadable: list for real
  }
  if (bare.length > 0 && bare.every((g) => typeof cached[g.game_file] === 'string')) {
    return bare.map((g) => ({ ...g, observation: cached[g.game_file] as string }));
  }
  const games = (await bridge.listGames(split)).games;
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(games.map((g) => [g.game_file, g.observation ?? '']))));
    renameSync(tmp, path);
  } catch {
    // a read-only home: run without the cache
  }
  return games;
}

async function listSplit(bridge: BridgeClient, split: AlfworldSplit, opts: AlfworldLoadOptions): Promise<GameInfo[]> {
  try {
    if (opts.listingCache) return await listCached(bridge, split, opts.listingCache, opts.listingIdentity ?? null);
    return (await bridge.listGames(split)).games;
  } catch (err) {
    if (err instanceof BridgeRequestError) throw new UserError(`ALFWorld ${split}: ${err.message}`, err.code);
    throw err;
  }
}

export async function loadAlfworld(bridge: BridgeClient, opts: AlfworldLoadOptions): Promise<LoadedTasks<AlfworldTask>> {
  let train: AlfworldTask[];
  if (opts.gameFile) {
    let r;
    try {
      r = await bridge.reset({ gameFile: opts.gameFile });
    } catch (err) {
      if (err instanceof BridgeRequestError) throw new UserError(`--game-file: ${err.message}`, err.code);
      throw err;
    }
    train = [toTask('train', { index: -1, game_file: r.game_file, task_type: r.task_type, observation: r.observation })];
  } else {
    const games = await listSplit(bridge, 'train', opts);
    if (games.length === 0) throw new UserError(`ALFWorld train split has no games (${opts.envLabel}); check the dataset paths in the ALFWorld config or memrl.alfworld.games_per_type`);
    train = sample(games, opts.datasetRatio, opts.seed).map((g) => toTask('train', g));
  }
  let valid: AlfworldTask[] = [];
  if (opts.validate) {
    const games = await listSplit(bridge, opts.validSplit, opts);
    if (games.length === 0) throw new UserError(`ALFWorld ${opts.validSplit} split has no games (${opts.envLabel}); check the dataset paths in the ALFWorld config, or turn validation off with --no-run-validation`);
    valid = games.map((g) => toTask(opts.validSplit, g));
  }
  if (opts.limit) {
    train = train.slice(0, opts.limit);
    valid = valid.slice(0, opts.limit);
  }
  const listing = createHash('sha256').update(JSON.stringify([...train, ...valid].map((t) => t.gameFile))).digest('hex');
  return {
    train,
    valid,
    sources: [{ path: `${opts.envLabel}:game-list`, sha256: listing }],
    splitLabel: `${opts.envLabel}: train ${train.length}${opts.validate ? ` / ${opts.validSplit} ${valid.length}` : ''}`,
  };
}

/**
 * Every way a plug-in can break its contract, caught at the boundary: what it exports
 * (when it is loaded) and what its functions return or pass to memrl (as the run asks
 * for it). Each case is one line on stderr naming the plug-in, the function and the
 * field, and exit 2; a violation found before the run folder exists leaves none.
 *
 * The plug-ins are small JS modules built from one valid benchmark ("probe") and one
 * valid method ("mprobe"), each case breaking one thing, run through the built CLI.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

interface BenchParts {
  /** Extra or replaced fields of the module object (JS source, each ending in a comma). */
  module?: string;
  /** The whole create function's body, replacing the valid one. */
  create?: string;
  load?: string;
  episode?: string;
  simPlayer?: string;
}

const TASKS = `const tasks = (n, p) => Array.from({ length: n }, (_, i) => ({ id: 't/' + p + i, key: 'task ' + p + i }));`;
const EPISODE = `async (task, ctx) => {
      const r = await ctx.model.chat({ messages: [{ role: 'user', content: task.key }], tags: { benchmark: 'probe', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent' } }, ctx.signal);
      const ok = r.text.includes('1');
      return { status: ok ? 'pass' : 'fail', success: ok, steps: 1, trajectory: r.text, usage: r.usage };
    }`;

function benchSource(p: BenchParts = {}): string {
  const created = `({
    name: 'probe',
    envLabel: 'probe',
    load: ${p.load ?? `async () => ({ train: tasks(3, ''), valid: [], sources: [], splitLabel: 'probe' })`},
    episode: ${p.episode ?? EPISODE},
    simPlayer: ${p.simPlayer ?? `() => ({ reply: () => 'ANSWER: 1' })`},
    describeEvaluator: async () => ({ kind: 'probe' }),
  })`;
  return `${TASKS}
export default {
  kind: 'benchmark',
  name: 'probe',
  displayName: 'Probe',
  description: 'a contract probe',
  resolve: () => ({}),
  create: ${p.create ?? `() => ${created}`},
  ${p.module ?? ''}
};
`;
}

interface MethodParts {
  module?: string;
  /** Replaced members of the instance (JS source, each ending in a comma). */
  instance?: string;
  create?: string;
}

function methodSource(p: MethodParts = {}): string {
  return `export default {
  kind: 'method',
  name: 'mprobe',
  displayName: 'MProbe',
  description: 'a contract probe',
  create: ${
    p.create ??
    `() => ({
    retrieve: async (tasks) => tasks.map(() => ({ memories: [], fields: { retrievedIds: [] } })),
    learn: async (ep) => ({ memoryId: 'm-' + ep.task.id }),
    commit: () => {},
    snapshot: () => ({}),
    records: () => [],
    stats: () => ({}),
    size: 0,
    ${p.instance ?? ''}
  })`
  },
  ${p.module ?? ''}
};
`;
}

interface Case {
  name: string;
  bench?: BenchParts;
  method?: MethodParts;
  /** The line's text after `plugin <file>: `. */
  line: RegExp;
  /** Found before the run folder exists: nothing may be written. */
  nothingWritten?: boolean;
}

const CASES: Case[] = [
  // What a benchmark module exports, checked when it is loaded.
  { name: 'benchmark without create', bench: { create: 'undefined' }, line: /^benchmark "probe": `create` is missing \(expected \(settings: S, run: ResolvedConfig\) => Benchmark \| Promise<Benchmark>\); see docs\/plugin-reference\.md#benchmarkmodule$/, nothingWritten: true },
  { name: 'benchmark name not a command name', bench: { module: "name: 'Pro be'," }, line: /^benchmark "Pro be": `name` is not a lowercase name/, nothingWritten: true },
  { name: 'misspelt optional field', bench: { module: "tagfamily: 'other'," }, line: /^benchmark "probe": has an unknown field `tagfamily` \(did you mean `tagFamily`\?\)/, nothingWritten: true },
  { name: 'unknown tag family', bench: { module: "tagFamily: 'custom'," }, line: /^benchmark "probe": `tagFamily` is "custom", expected "other"; see docs\/plugin-reference.md#benchmarkmodule/, nothingWritten: true },
  { name: 'a flag without its dashes', bench: { module: "flags: [{ flags: 'problems <n>', description: 'x', path: null }]," }, line: /^benchmark "probe": `flags\[0\]\.flags` is not a long flag with its argument/, nothingWritten: true },
  { name: 'a flag without path', bench: { module: "flags: [{ flags: '--problems <n>', description: 'x' }]," }, line: /^benchmark "probe": `flags\[0\]\.path` is missing \(expected string\[\] \| null\)/, nothingWritten: true },
  { name: 'config section not a zod schema', bench: { module: 'configSection: { train: 3 },' }, line: /^benchmark "probe": `configSection` is not a zod object schema/, nothingWritten: true },
  { name: 'defaults not in the file shape', bench: { module: 'defaults: { epochs: 3 },' }, line: /^benchmark "probe": `defaults` is not a defaults layer/, nothingWritten: true },
  // What its functions return, checked as the run asks for it.
  { name: 'create throws', bench: { create: "() => { throw new TypeError('boom in create'); }" }, line: /^benchmark "probe": create\(\) threw: TypeError: boom in create \(at [^)]*probe\.mjs:\d+\); the stack is in the run's log\.jsonl, or rerun with --verbose$/, nothingWritten: true },
  { name: 'create returns no episode', bench: { create: "() => ({ name: 'probe', envLabel: 'probe', load: async () => ({}), simPlayer: () => ({}), describeEvaluator: async () => ({}) })" }, line: /^benchmark "probe": create\(\) returned a bad Benchmark: `episode` is missing \(expected \(task: Task, ctx: EpisodeContext\) => Promise<EpisodeResult>\)/, nothingWritten: true },
  { name: 'create returns another name', bench: { create: "() => ({ name: 'other', envLabel: 'x', load: async () => ({}), episode: async () => ({}), simPlayer: () => ({}), describeEvaluator: async () => ({}) })" }, line: /^benchmark "probe": create\(\) returned a Benchmark named 'other', expected the module's name 'probe'/, nothingWritten: true },
  { name: 'a task without key', bench: { load: "async () => ({ train: [{ id: 'a', key: 'x' }, { id: 'b' }], valid: [], sources: [], splitLabel: 's' })" }, line: /^benchmark "probe": load\(\) returned a bad LoadedTasks: `train\[1\]\.key` is missing \(expected string\)/, nothingWritten: true },
  { name: 'two tasks with one id', bench: { load: "async () => ({ train: [{ id: 'a', key: 'x' }, { id: 'a', key: 'y' }], valid: [], sources: [], splitLabel: 's' })" }, line: /^benchmark "probe": load\(\) returned a bad LoadedTasks: `train\[1\]\.id` repeats the id 'a'/, nothingWritten: true },
  { name: 'no training tasks', bench: { load: "async () => ({ train: [], valid: [], sources: [], splitLabel: 's' })" }, line: /^benchmark "probe": load\(\) returned a bad LoadedTasks: `train` is empty/, nothingWritten: true },
  { name: 'a source without its sha256', bench: { load: "async () => ({ train: tasks(2, ''), valid: [], sources: [{ path: 'x.json', sha256: 'abc' }], splitLabel: 's' })" }, line: /^benchmark "probe": load\(\) returned a bad LoadedTasks: `sources\[0\]\.sha256` is not a sha256 in hex/, nothingWritten: true },
  { name: 'load returns the task list alone', bench: { load: "async () => tasks(2, '')" }, line: /^benchmark "probe": load\(\) returned an array, expected LoadedTasks/, nothingWritten: true },
  { name: 'a status memrl does not know', bench: { episode: "async () => ({ status: 'ok', success: true, steps: 1, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } })" }, line: /^benchmark "probe": episode\(t\/0\) returned a bad EpisodeResult: `status` is "ok", expected one of 'pass', 'fail'/ },
  { name: 'success that contradicts the status', bench: { episode: "async () => ({ status: 'fail', success: true, steps: 1, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } })" }, line: /^benchmark "probe": episode\(t\/0\) returned a bad EpisodeResult: `success` is true but status is 'fail'/ },
  { name: 'a result without trajectory', bench: { episode: "async () => ({ status: 'pass', success: true, steps: 1, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } })" }, line: /^benchmark "probe": episode\(t\/0\) returned a bad EpisodeResult: `trajectory` is missing \(expected string\)/ },
  { name: 'usage left out', bench: { episode: "async () => ({ status: 'pass', success: true, steps: 1, trajectory: '' })" }, line: /^benchmark "probe": episode\(t\/0\) returned a bad EpisodeResult: `usage` is missing \(expected TokenUsage\)/ },
  { name: 'extra that is not JSON', bench: { episode: "async () => ({ status: 'pass', success: true, steps: 1, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, extra: { seen: new Map() } })" }, line: /^benchmark "probe": episode\(t\/0\) returned a bad EpisodeResult: `extra` is not plain JSON/ },
  { name: 'a chat call with a role memrl does not know', bench: { episode: EPISODE.replace("role: 'agent'", "role: 'assistant'") }, line: /^benchmark "probe": episode\(t\/0\): ctx\.model\.chat\(\) passed a bad ChatRequest: `tags\.role` is "assistant", expected one of 'agent', 'judge', 'memory'/ },
  { name: 'a chat call without messages', bench: { episode: EPISODE.replace("[{ role: 'user', content: task.key }]", '[]') }, line: /^benchmark "probe": episode\(t\/0\): ctx\.model\.chat\(\) passed a bad ChatRequest: `messages` is empty/ },
  { name: 'a chat call tagged with another benchmark', bench: { episode: EPISODE.replace("benchmark: 'probe'", "benchmark: 'arith'") }, line: /^benchmark "probe": episode\(t\/0\): ctx\.model\.chat\(\) passed tags\.benchmark 'arith', expected the benchmark's name 'probe'/ },
  { name: 'a sim reply that is not text', bench: { simPlayer: '() => ({ reply: () => 1 })' }, line: /^benchmark "probe": simPlayer\(\)\.reply\(t\/0\) returned a number, expected string/ },
  // A method module and its instance.
  { name: 'method without create', method: { create: 'undefined' }, line: /^method "mprobe": `create` is missing/, nothingWritten: true },
  { name: 'an engine memrl does not have', method: { module: "engine: 'fancy'," }, line: /^method "mprobe": `engine` is "fancy", expected one of 'none', 'rag', 'memp', 'memrl'/, nothingWritten: true },
  { name: 'create returns no retrieve', method: { create: '() => ({ commit: () => {}, snapshot: () => ({}), records: () => [], stats: () => ({}), size: 0 })' }, line: /^method "mprobe": create\(\) returned a bad MethodInstance: `retrieve` is missing/, nothingWritten: true },
  { name: 'a retrieval too many', method: { instance: "retrieve: async (ts) => [...ts, ...ts].map(() => ({ memories: [], fields: { retrievedIds: [] } }))," }, line: /^method "mprobe": retrieve\(\) returned 2 retrieval\(s\) for 1 task\(s\): one per task, in task order/ },
  { name: 'a memory without content', method: { instance: "retrieve: async (ts) => ts.map(() => ({ memories: [{ id: 'm', key: 'k', success: true, q: 0, sim: 0 }], fields: { retrievedIds: ['m'] } }))," }, line: /^method "mprobe": retrieve\(\) returned a bad Retrieval: `\[0\]\.memories\[0\]\.content` is missing \(expected string\)/ },
  { name: 'retrieval fields left out', method: { instance: 'retrieve: async (ts) => ts.map(() => ({ memories: [] })),' }, line: /^method "mprobe": retrieve\(\) returned a bad Retrieval: `\[0\]\.fields` is missing \(expected RetrievalFields\)/ },
  { name: 'an experience that is not JSON', method: { instance: 'learn: async (ep) => ({ memoryId: ep.task.id, at: new Date() }),' }, line: /^method "mprobe": learn\(t\/0\) returned a value that is not plain JSON/ },
  { name: 'a size that is not a count from the start', method: { instance: 'size: 0.5,' }, line: /^method "mprobe": create\(\) returned a bad MethodInstance: `size` is a float, expected integer/, nothingWritten: true },
  { name: 'a size that stops being a count', method: { instance: 'n: 0, commit() { this.n = -1; }, get size() { return this.n; },' }, line: /^method "mprobe": `size` is below 0/ },
  { name: 'a snapshot that is not JSON', method: { instance: 'snapshot: () => new Map(),' }, line: /^method "mprobe": snapshot\(\) returned a value that is not plain JSON/ },
  { name: 'a record without q', method: { instance: "records: () => [{ id: 'm', key: 'k', content: 'c', success: true, visits: 0, rewardEma: 0, lastReward: null, createdAt: 0, updatedAt: 0, relatedIds: [], meta: {} }]," }, line: /^method "mprobe": records\(\) returned a bad MemoryRecord: `\[0\]\.q` is missing \(expected number\)/ },
  { name: 'retrieve throws', method: { instance: "retrieve: async () => { throw new RangeError('no memory here'); }," }, line: /^method "mprobe": retrieve\(\) threw: RangeError: no memory here \(at [^)]*mprobe\.mjs:\d+\)/ },
];

let work: string;

beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-contract-');
});

async function runCase(c: Case, i: number): Promise<{ r: CliResult; out: string; bench: string }> {
  const dir = join(work, `case-${i}`);
  const out = join(dir, 'results');
  mkdirSync(dir, { recursive: true });
  const bench = join(dir, 'probe.mjs');
  writeFileSync(bench, benchSource(c.bench));
  const args = ['run', 'probe', '--plugin', bench, '--epochs', '1', '--concurrency', '1', '--output-dir', out];
  if (c.method) {
    const method = join(dir, 'mprobe.mjs');
    writeFileSync(method, methodSource(c.method));
    args.push('--plugin', method, '--method', 'mprobe');
  }
  return { r: await runMemrl(args, { cwd: dir, timeoutMs: 60_000 }), out, bench };
}

describe.concurrent('a plug-in that breaks its contract: one line naming the plug-in, the function and the field, exit 2', () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    const { r, out } = await runCase(c, i);
    const lines = r.stderr.trim().split('\n');
    const last = lines.at(-1) ?? '';
    const file = c.method ? 'mprobe.mjs' : 'probe.mjs';
    const prefix = `memrl: plugin ${join(work, `case-${i}`, file)}: `;
    expect(last.startsWith(prefix), r.stderr).toBe(true);
    expect(last.slice(prefix.length)).toMatch(c.line);
    expect(r.code, r.stderr).toBe(2);
    // The message is the only line memrl prints about it.
    expect(lines.filter((l) => l.includes('plugin ')).length).toBe(1);
    if (c.nothingWritten) {
      // A method is created once the tasks are loaded and the banner is out; nothing else may be.
      if (!c.method) expect(lines, 'nothing but the line').toHaveLength(1);
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    }
  });
});

describe("a plug-in's own exception", () => {
  const throwing = benchSource({ episode: "async (task) => { if (task.id === 't/1') throw new Error('bad luck on ' + task.id); return { status: 'pass', success: true, steps: 1, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } }; }" });

  it('in an episode is that episode\'s error row, its stack in log.jsonl; --verbose prints the stack too', async () => {
    const dir = tempDir('memrl-crash-');
    writeFileSync(join(dir, 'probe.mjs'), throwing);
    const quiet = await runMemrl(['run', 'probe', '--plugin', join(dir, 'probe.mjs'), '--epochs', '1', '--output-dir', 'quiet'], { cwd: dir, timeoutMs: 60_000 });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('at ');
    const runDir = /^results: (\S+)$/m.exec(quiet.stdout)![1]!;
    const rows = readFileSync(join(runDir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.find((r) => r.taskId === 't/1')).toMatchObject({ status: 'error', error: 'episode crashed: bad luck on t/1' });
    const log = readFileSync(join(runDir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const crash = log.find((l) => l.event === 'plugin_crashed');
    expect(crash).toMatchObject({ where: 'episode(t/1)' });
    expect(crash.stack).toMatch(/Error: bad luck on t\/1\n\s+at .*probe\.mjs:\d+/);

    const loud = await runMemrl(['run', 'probe', '--plugin', join(dir, 'probe.mjs'), '--epochs', '1', '--output-dir', 'loud', '--verbose'], { cwd: dir, timeoutMs: 60_000 });
    expect(loud.code, loud.stderr).toBe(0);
    expect(loud.stderr).toMatch(/plug-in episode\(t\/1\) threw: Error: bad luck on t\/1\n\s+at .*probe\.mjs:\d+/);
  });

  it('outside an episode stops the command in one line; --verbose adds the stack', async () => {
    const dir = tempDir('memrl-crash-');
    writeFileSync(join(dir, 'probe.mjs'), benchSource({ load: "async () => { null.tasks; }" }));
    const args = ['run', 'probe', '--plugin', join(dir, 'probe.mjs'), '--epochs', '1', '--output-dir', 'out'];
    const quiet = await runMemrl(args, { cwd: dir, timeoutMs: 60_000 });
    expect(quiet.code).toBe(2);
    expect(quiet.stderr.trim().split('\n')).toHaveLength(1);
    expect(quiet.stderr).toMatch(/load\(\) threw: TypeError: Cannot read properties of null \(reading 'tasks'\) \(at [^)]*probe\.mjs:\d+\)/);
    const loud = await runMemrl([...args, '--verbose'], { cwd: dir, timeoutMs: 60_000 });
    expect(loud.code).toBe(2);
    expect(loud.stderr).toMatch(/^TypeError: Cannot read properties of null[^\n]*\n\s+at .*probe\.mjs:\d+/m);
  });
});

describe('what memrl does for every plug-in benchmark', () => {
  it('applies --limit itself, and defaults to method memrl', async () => {
    const dir = tempDir('memrl-limit-');
    // Ten tasks, no limit handling of its own, no enable_value_driven in its defaults.
    writeFileSync(join(dir, 'probe.mjs'), benchSource({ load: "async () => ({ train: tasks(10, ''), valid: tasks(10, 'v'), sources: [], splitLabel: 'ten' })" }));
    const r = await runMemrl(['run', 'probe', '--plugin', join(dir, 'probe.mjs'), '--epochs', '1', '--limit', '3', '--run-validation', '--output-dir', 'out'], { cwd: dir, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const runDir = /^results: (\S+)$/m.exec(r.stdout)![1]!;
    const rows = readFileSync(join(runDir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((x) => x.phase === 'train').map((x) => x.taskId)).toEqual(['t/0', 't/1', 't/2']);
    expect(rows.filter((x) => x.phase === 'valid' && x.epoch === 1).map((x) => x.taskId)).toEqual(['t/v0', 't/v1', 't/v2']);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(manifest.method).toBe('memrl');
    expect(JSON.stringify(manifest)).toContain('ten, limit 3');
  });
});

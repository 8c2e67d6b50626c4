/**
 * Self-RAG and Mem0 through the built CLI, offline (sim model, local embedder), as a
 * user runs them: HLE (the committed fixture) and BCB (two tasks, bubblewrap sandbox);
 * `--replay` gives the same outcomes, metrics and memories with zero calls; a run
 * killed at the runner's narrow windows and resumed ends where the uninterrupted run
 * does; a prompt pack overrides Self-RAG's prompts; bad settings fail in one line naming
 * the key; `memrl table --paper`, `report`
 * and `compare` show all eight methods, in the paper's order.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import type { OutcomeRow } from '../../src/metrics/outcome-row.js';
import { assertBuilt, runMemrl, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const HLE = resolve('test/fixtures/hle/hle_snappy.parquet');
const SIM = 'llm: {provider: sim}\nembedding: {provider: local}\n';
let work: string;

beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-baselines-cli-');
  writeFileSync(join(work, 'sim.yaml'), SIM);
  writeFileSync(join(work, 'infer.yaml'), `${SIM}memrl:\n  mem0: {infer: true, limit: 3}\n`);
});

function memrl(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runMemrl(args, { cwd: work, env, timeoutMs: 240_000 });
}

function onlyRun(out: string, bench: string): string {
  const root = join(work, out, bench);
  const runs = readdirSync(root).filter((d) => !d.includes('.tmp-'));
  expect(runs).toHaveLength(1);
  return join(root, runs[0]!);
}

const hle = (method: string, out: string, config = 'sim.yaml', extra: string[] = []): string[] => [
  'run', 'hle', '--config', config, '--train', HLE, '--train_valid_split', '0.5', '--method', method, '--epochs', '3', '--batch-size', '4', '--output-dir', out, ...extra,
];

const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);

/** Drop what differs between any two runs of one command: wall-clock times, durations, cache provenance. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (['latencyMs', 'finishedAt', 'cacheHits', 'createdAt', 'updatedAt', 'at', 'savedAt'].includes(k)) continue;
    out[k] = strip(v);
  }
  return out;
}

function rowsOf(dir: string): OutcomeRow[] {
  const r = readOutcomeRows(join(dir, 'outcomes.jsonl'));
  expect(r.truncatedTail).toBeUndefined();
  return r.rows;
}

/** The final state of a run folder, minus times. */
function finalState(dir: string): Record<string, unknown> {
  const json = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, any>;
  const summary = json('summary.json');
  return {
    rows: strip(rowsOf(dir)),
    metrics: readFileSync(join(dir, 'metrics.json'), 'utf8'),
    memories: strip(lines(join(dir, 'memories.jsonl')).map((l) => JSON.parse(l))),
    checkpoint: strip(json('checkpoint.json').memory),
    summary: { status: summary.status, memory: summary.memory, metrics: summary.metrics },
    leftovers: readdirSync(dir).filter((f) => f.includes('.tmp-') || f === 'journal.jsonl'),
  };
}

describe.each([
  ['selfrag', 'sim.yaml'],
  ['mem0', 'sim.yaml'],
  ['mem0', 'infer.yaml'],
])('memrl run hle --method %s (%s)', (method, config) => {
  const tag = `${method}-${config.replace('.yaml', '')}`;
  let live: string;

  beforeAll(async () => {
    const r = await memrl(hle(method, `live-${tag}`, config));
    expect(r.stderr).toMatch(/done: 3\/3/);
    expect(r.code).toBe(0);
    live = onlyRun(`live-${tag}`, 'hle');
  }, 300_000);

  it('writes a complete run folder: rows, memories, the method named in run.json', () => {
    const manifest = JSON.parse(readFileSync(join(live, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({ method, methodName: method === 'selfrag' ? 'Self-RAG' : 'Mem0', model: 'sim', simulated: true });
    const rows = rowsOf(live);
    expect(rows.filter((r) => r.phase === 'valid').length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.phase === 'train' && r.epoch === 3).some((r) => r.retrievedIds.length > 0)).toBe(true);
    const memories = lines(join(live, 'memories.jsonl')).map((l) => JSON.parse(l));
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.every((m) => new RegExp(`^${method}-e\\d+-t\\d+(-m\\d+)?$`).test(m.id))).toBe(true);
    const summary = JSON.parse(readFileSync(join(live, 'summary.json'), 'utf8'));
    const memoryCalls = summary.usage.byRole.memory.calls;
    if (method === 'selfrag') {
      // Every row after the first epoch says how its memories were chosen.
      for (const r of rows.filter((x) => x.epoch >= 2)) {
        const rec = r.extra?.retrieval as Record<string, any>;
        expect(rec.mode).toBe('adaptive');
        expect(rec.selected).toEqual(r.retrievedIds);
      }
      expect(memoryCalls).toBeGreaterThan(0);
    } else {
      expect(rows.every((r) => r.extra?.retrieval === undefined)).toBe(true);
      expect(memoryCalls > 0).toBe(config === 'infer.yaml');
    }
  });

  it('--replay gives the same outcomes, metrics and memories with zero calls', async () => {
    const r = await memrl(hle(method, `replay-${tag}`, config, ['--replay', live]));
    expect(r.stderr).toMatch(/done: 3\/3/);
    const replayed = onlyRun(`replay-${tag}`, 'hle');
    const a = finalState(live);
    const b = finalState(replayed);
    expect(b.rows).toEqual(a.rows);
    expect(b.metrics).toBe(a.metrics);
    expect(b.memories).toEqual(a.memories);
    expect(b.checkpoint).toEqual(a.checkpoint);
    const summary = JSON.parse(readFileSync(join(replayed, 'summary.json'), 'utf8'));
    expect(summary.usage.total.calls).toBe(0);
  });

  it('killed in the narrow windows and resumed, it ends where the uninterrupted run ends', async () => {
    const out = `killed-${tag}`;
    // 3 barriers per epoch: the 5th barrier is in epoch 2, after its commit and before its journal line.
    for (const crash of ['barrier:5', 'journaled:4', 'checkpoint:1']) {
      const dir = existsSync(join(work, out, 'hle')) ? onlyRun(out, 'hle') : undefined;
      const r = await memrl([...hle(method, out, config), ...(dir ? ['--resume', dir] : [])], { MEMRL_CRASH_AT: crash });
      expect(r.code, `${crash}: ${r.stderr}`).toBeNull(); // killed by its own SIGKILL
    }
    const last = await memrl([...hle(method, out, config), '--resume', onlyRun(out, 'hle')]);
    expect(last.stderr).toMatch(/done: 3\/3/);
    const dir = onlyRun(out, 'hle');
    expect(finalState(dir)).toEqual(finalState(live));
    const resumes = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).resumes as { journaled: number }[];
    expect(resumes).toHaveLength(3);
    // Journaled episodes were taken over: each recomputed retrieval (and Self-RAG's record) matched.
    expect(resumes.some((x) => x.journaled > 0)).toBe(true);
    expect(readFileSync(join(dir, 'log.jsonl'), 'utf8')).not.toContain('journal_mismatch');
  });
});

describe('BCB (two tasks, sandboxed tests)', () => {
  it.each(['selfrag', 'mem0'])('memrl run bcb --method %s', async (method) => {
    const r = await memrl(['run', 'bcb', '--config', 'sim.yaml', '--method', method, '--limit', '2', '--epochs', '2', '--output-dir', `bcb-${method}`]);
    expect(r.stderr).toMatch(/done: 2\/2/);
    expect(r.code).toBe(0);
    const dir = onlyRun(`bcb-${method}`, 'bcb');
    const rows = rowsOf(dir);
    expect(rows.filter((x) => x.phase === 'train')).toHaveLength(4);
    expect(rows.every((x) => ['pass', 'fail', 'timeout', 'syntax_error', 'runtime_error'].includes(x.status))).toBe(true);
    const memories = lines(join(dir, 'memories.jsonl')).map((l) => JSON.parse(l));
    expect(memories).toHaveLength(4);
    // What both store: the task, the model's code and how the tests ended.
    expect(memories[0].content).toMatch(/^Task: [\s\S]+\n\nTrajectory:\n[\s\S]+\n\nResult: (success|failure) \(/);
    // Epoch 2 searches the memories of epoch 1 (Self-RAG's decision may still inject none of them).
    const epoch2 = rows.filter((x) => x.epoch === 2);
    if (method === 'selfrag') expect(epoch2.every((x) => (x.extra?.retrieval as { candidates: unknown[] }).candidates.length > 0)).toBe(true);
    else expect(epoch2.every((x) => x.retrievedIds.length > 0)).toBe(true);
  }, 240_000);
});

describe("Self-RAG's prompts are in the memory namespace of prompt packs", () => {
  it('a pack overrides the gate prompt: other requests, same run otherwise; a bad placeholder is refused before the run', async () => {
    const pack = join(work, 'pack');
    mkdirSync(join(pack, 'memory'), { recursive: true });
    writeFileSync(join(pack, 'memory', 'selfrag-gate-system.md'), 'Decide whether to look at past attempts. Reply {"should_retrieve": true} or false, as JSON.\n');
    // The gate is memrl's extra call (selfrag.gate-call=memrl); every candidate kept (no similarity floor), so that there is something to gate.
    writeFileSync(join(work, 'sim-open.yaml'), `${SIM}memrl:\n  selfrag: {threshold: -1}\n`);
    const args = (out: string, extra: string[] = []) =>
      ['run', 'hle', '--config', 'sim-open.yaml', '--train', HLE, '--method', 'selfrag', '--epochs', '2', '--output-dir', out, '--fidelity-switch', 'selfrag.gate-call=memrl', ...extra];
    expect((await memrl(args('plain'))).code).toBe(0);
    expect((await memrl(args('packed', ['--prompts', pack]))).code).toBe(0);
    const gateKeys = (out: string): Set<string> =>
      new Set(
        lines(join(onlyRun(out, 'hle'), 'responses.jsonl'))
          .map((l) => JSON.parse(l) as { k: string; tags?: { purpose?: string } })
          .filter((e) => e.tags?.purpose === 'selfrag-gate')
          .map((e) => e.k),
      );
    const [plain, packed] = [gateKeys('plain'), gateKeys('packed')];
    expect(packed.size).toBeGreaterThan(0);
    expect([...packed].some((k) => plain.has(k))).toBe(false);
    expect(JSON.parse(readFileSync(join(onlyRun('packed', 'hle'), 'run.json'), 'utf8')).prompts.overrides).toEqual(['memory/selfrag-gate-system.md']);
    writeFileSync(join(pack, 'memory', 'selfrag-decision-user.md'), 'The candidates: {{candidates}}\n');
    const bad = await memrl(args('badpack', ['--prompts', pack]));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/selfrag-decision-user\.md: placeholder \{\{candidates\}\} is not filled by memrl .*available: \{\{input\}\}/);
  });
});

describe('bad settings fail in one line naming the key', () => {
  it.each([
    ['selfrag', 'memrl:\n  selfrag: {retrieval_mode: sometimes}\n', /`memrl\.selfrag\.retrieval_mode` must be one of adaptive, always, never, got "sometimes"/],
    ['selfrag', 'memrl:\n  selfrag: {top_k: 0}\n', /`memrl\.selfrag\.top_k` must be >= 1, got 0/],
    ['mem0', 'memrl:\n  mem0: {limit: 0}\n', /`memrl\.mem0\.limit` must be >= 1, got 0/],
    ['mem0', 'memrl:\n  mem0: {threshold: 1.5}\n', /`memrl\.mem0\.threshold` must be <= 1, got 1.5/],
  ])('%s: %s', async (method, yaml, message) => {
    writeFileSync(join(work, 'bad.yaml'), `${SIM}${yaml}`);
    const r = await memrl(['run', 'hle', '--config', 'bad.yaml', '--train', HLE, '--method', method, '--output-dir', 'bad']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(existsSync(join(work, 'bad'))).toBe(false);
  });
});

describe('all eight methods in tables, reports and comparisons', () => {
  const METHODS = ['mem0', 'selfrag', 'passk', 'reflection', 'memrl', 'memp', 'rag', 'none'];

  beforeAll(async () => {
    for (const m of METHODS) {
      const r = await runMemrl(['run', 'hle', '--config', 'sim.yaml', '--train', HLE, '--method', m, '--epochs', '2', '--output-dir', 'all'], { cwd: work });
      expect(r.code, r.stderr).toBe(0);
    }
  }, 300_000);

  it('`memrl table --paper` has a row per method in the paper\'s order, then the paper\'s rows for HLE', async () => {
    const t = await memrl(['table', 'all', '--paper', '--metric', 'last']);
    expect(t.code).toBe(0);
    const rowNames = t.stdout
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Method'))
      .map((l) => l.split('|')[1]!.trim());
    // The paper gives Self-RAG a number on BigCodeBench only, and none for Mem0.
    expect(rowNames).toEqual(['No memory', 'Pass@k', 'Reflection', 'RAG', 'Self-RAG', 'Mem0', 'MemP', 'MemRL', 'MemP (paper)', 'MemRL (paper)']);
    // Pass@k's and Reflection's Last counts only the tasks solved in the final epoch: marked, explained, never bold.
    const row = (name: string) => t.stdout.split('\n').find((l) => l.startsWith(`| ${name} |`))!;
    for (const name of ['Pass@k', 'Reflection']) {
      expect(row(name)).toContain('◇');
      expect(row(name)).not.toContain('**');
    }
    for (const name of ['No memory', 'MemRL']) expect(row(name)).not.toContain('◇');
    expect(t.stdout).toMatch(/◇ Pass@k and Reflection retry only the tasks not solved yet.*the paper reports only their cumulative number \(CSR\)/);
  });

  it('`memrl report` and `memrl compare` name them', async () => {
    const r = await memrl(['report', 'all', '--out', 'report.html']);
    expect(r.code).toBe(0);
    const html = readFileSync(join(work, 'report.html'), 'utf8');
    for (const name of ['Self-RAG', 'Mem0']) expect(html).toContain(name);
    const runs = readdirSync(join(work, 'all', 'hle')).map((d) => join(work, 'all', 'hle', d));
    const selfragRun = runs.find((d) => d.includes('-selfrag-'))!;
    const mem0Run = runs.find((d) => d.includes('-mem0-'))!;
    // Different methods are compared only on purpose (--force).
    const c = await memrl(['compare', selfragRun, mem0Run, '--metric', 'last', '--force']);
    expect([0, 1]).toContain(c.code);
    expect(c.stdout).toMatch(/baseline: .*\(1 run: selfrag, sim/);
    expect(c.stdout).toMatch(/candidate: .*\(1 run: mem0, sim/);
  });
});

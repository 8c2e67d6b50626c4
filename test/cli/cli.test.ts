/**
 * The CLI as a user runs it: the built bin/memrl.js in a scratch folder.
 * `npm test` builds first; these tests need dist/.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { sharedDataDir } from '../../src/util/paths.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function memrl(args: string[], env: Record<string, string> = {}) {
  return runMemrl(args, { cwd: work, env });
}

/** A user-facing error: exactly one line on stderr, no stack trace, non-zero exit. */
function expectOneLineError(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(r.code).not.toBe(0);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(assertBuilt);

describe('memrl CLI: bad input', () => {
  it('lists the valid methods for an unknown --method', async () => {
    expectOneLineError(await memrl(['run', 'bcb', '--method', 'bogus']), /bogus.*none.*rag.*memp.*memrl/);
  });

  it('names the file and key path of an unknown config key', async () => {
    writeFileSync(join(work, 'typo.yaml'), 'llm:\n  provider: sim\nmemory:\n  k_retreive: 5\n');
    expectOneLineError(await memrl(['run', 'bcb', '--config', 'typo.yaml']), /typo\.yaml.*memory\.k_retreive.*k_retrieve/);
  });

  it('names a missing config file', async () => {
    expectOneLineError(await memrl(['run', 'bcb', '--config', 'nope.yaml']), /nope\.yaml/);
  });

  it('names a missing data file and says how to get the data', async () => {
    expectOneLineError(await memrl(['run', 'bcb', '--data-path', 'missing.jsonl.gz', '--limit', '1']), /missing\.jsonl\.gz.*(hub|MEMRL_DATA_DIR|--data-path)/);
  });

  it('names the file and line of a malformed JSONL line', async () => {
    const first = readFirstTask();
    writeFileSync(join(work, 'broken.jsonl.gz'), gzipSync(`${first}\n{"task_id": "BigCodeBench/1", oops\n`));
    expectOneLineError(
      await memrl(['run', 'bcb', '--data-path', 'broken.jsonl.gz', '--split-file', 'none', '--limit', '1']),
      /broken\.jsonl\.gz line 2/,
    );
  });

  it("accepts the reference's own rl_bcb_config.yaml and asks for a key when none is set", async () => {
    const ref = join(sharedDataDir(), 'reference-configs', 'rl_bcb_config.yaml');
    expectOneLineError(await memrl(['run', 'bcb', '--config', ref, '--split', 'instruct', '--epochs', '10']), /OPENAI_API_KEY/);
    const shown = await memrl(['config', ref]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('sim_norm_mean: 0.31');
  });

  it('rejects a non-numeric --epochs', async () => {
    expectOneLineError(await memrl(['run', 'bcb', '--epochs', 'abc']), /--epochs/);
  });

  it('explains every run flag with its default in --help', async () => {
    const r = await memrl(['run', 'bcb', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--config', '--subset', '--split', '--epochs', '--split-file', '--data-path', '--retrieve-threshold', '--retrieve-k', '--memory-budget', '--eval-timeout', '--output-dir', '--temperature', '--max-tokens', '--method', '--concurrency', '--limit', '--seed', '--run-validation', '--resume']) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toMatch(/default/i);
  });
});

function readFirstTask(): string {
  const gz = readFileSync(join(sharedDataDir(), 'bigcodebench', 'bigcodebench_full.jsonl.gz'));
  const text = gunzipSync(gz).toString('utf8');
  return text.slice(0, text.indexOf('\n'));
}

describe('memrl memory replay', () => {
  it('reproduces the worked Phase B vector and the Q test vector from a JSON-lines script', async () => {
    // Keys at cosines .80, .70, .70 to the query (1, 0).
    const at = (c: number) => [c, Math.sqrt(1 - c * c)];
    const ops = [
      { op: 'config', rl: { topk: 2, epsilon: 0, weight_sim: 0.5, weight_q: 0.5, q_min_threshold: -10, alpha: 0.3 }, memory: { k_retrieve: 5, sim_norm_mean: 0.5187, sim_norm_std: 0.1203 } },
      { op: 'insert', id: 'A', key: 'a', embedding: at(0.8), q: 0, success: true },
      { op: 'insert', id: 'B', key: 'b', embedding: at(0.7), q: 0.51, success: true },
      { op: 'insert', id: 'C', key: 'c', embedding: [0.7, -Math.sqrt(1 - 0.49)], q: -0.3, success: false },
      { op: 'retrieve', embedding: [1, 0] },
      { op: 'update', ids: ['A'], success: true },
      { op: 'update', ids: ['A'], success: true },
      { op: 'update', ids: ['A'], success: false },
    ];
    writeFileSync(join(work, 'ops.jsonl'), ops.map((o) => JSON.stringify(o)).join('\n') + '\n');
    const r = await memrl(['memory', 'replay', 'ops.jsonl']);
    expect(r.code).toBe(0);
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(out[0].selected.map((s: { id: string }) => s.id)).toEqual(['B', 'A']);
    expect(out[0].selected[0].score).toBeCloseTo(1.411496, 5);
    expect(out[0].selected[1].score).toBeCloseTo(1.064484, 5);
    expect(out[0].pool).toBe(3);
    expect(out.slice(1).map((o: { q: { A: number } }) => o.q.A)).toEqual([expect.closeTo(0.3, 9), expect.closeTo(0.51, 9), expect.closeTo(0.057, 9)]);
  });

  it('names the file and line of a bad op', async () => {
    writeFileSync(join(work, 'bad-ops.jsonl'), '{"op":"insert","id":"m1","key":"k","embedding":[1,0],"q":0,"success":true}\n{"op":"teleport"}\n');
    expectOneLineError(await memrl(['memory', 'replay', 'bad-ops.jsonl']), /bad-ops\.jsonl.*2/);
  });
});

describe('memrl run bcb end to end (sim model, real sandbox)', () => {
  const secret = 'sk-test-DO-NOT-LEAK-4242';

  beforeAll(async () => {
    const bw = await checkBwrap();
    if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
  });

  it('writes a complete, readable result folder and resumes to more epochs', async () => {
    // A sim run whose config carries a (fake) secret: it must not leak into any output.
    writeFileSync(
      join(work, 'e2e.yaml'),
      `llm:\n  provider: sim\n  model: sim\n  api_key: ${secret}\nembedding:\n  provider: local\n  api_key: ${secret}\nexperiment:\n  experiment_name: e2e\n`,
    );
    const r = await memrl(['run', 'bcb', '--config', 'e2e.yaml', '--epochs', '2', '--limit', '3', '--run-validation', '--output-dir', 'out']);
    expect(r.stderr).toMatch(/done: 2\/2/);
    expect(r.code).toBe(0);
    const runs = readdirSync(join(work, 'out', 'bcb'));
    expect(runs).toHaveLength(1);
    const dir = join(work, 'out', 'bcb', runs[0] as string);
    for (const f of ['run.json', 'outcomes.jsonl', 'outcomes.arrow', 'metrics.json', 'summary.json', 'memories.jsonl', 'checkpoint.json']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({ benchmark: 'bcb', model: 'sim', simulated: true, method: 'memrl' });
    expect(manifest.dataset.sources.every((s: { sha256: string }) => /^[0-9a-f]{64}$/.test(s.sha256))).toBe(true);
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    // 3 train tasks × 2 epochs + 3 valid tasks × 2 epochs (validation before training is off for BCB).
    expect(rows.filter((x) => x.phase === 'train')).toHaveLength(6);
    expect(rows.every((x) => ['pass', 'fail', 'timeout', 'syntax_error', 'runtime_error'].includes(x.status))).toBe(true);

    const again = await memrl(['run', 'bcb', '--config', 'e2e.yaml', '--epochs', '3', '--limit', '3', '--run-validation', '--output-dir', 'out', '--resume', dir]);
    expect(again.stderr).toMatch(/done: 3\/3/);
    const rows3 = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    expect(rows3.filter((x) => x.phase === 'train').map((x) => x.epoch)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3]);

    // Secrets never reach result files or logs.
    const written = readdirSync(dir).map((f) => join(dir, f)); // the log is in the run folder (log.jsonl)
    for (const f of written) {
      if (existsSync(f) && !f.endsWith('tb')) expect(readFileSync(f, 'latin1').includes(secret), f).toBe(false);
    }
    expect(r.stderr.includes(secret) || again.stderr.includes(secret)).toBe(false);
  }, 600_000);

  it('refuses to resume a run with a different method', async () => {
    const runs = readdirSync(join(work, 'out', 'bcb'));
    const dir = join(work, 'out', 'bcb', runs[0] as string);
    expectOneLineError(await memrl(['run', 'bcb', '--config', 'e2e.yaml', '--method', 'rag', '--limit', '3', '--resume', dir]), /method/);
  });
});

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const TSX = resolve('node_modules/.bin/tsx');
const MAIN = resolve('src/cli/main.ts');

async function memrl(args: string[], yaml: string, files: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; work: string }> {
  const work = tempDir('memrl-alf-cli-');
  writeFileSync(join(work, 'run.mts'), `import { main } from ${JSON.stringify(MAIN)};\nawait main(process.argv);\n`);
  writeFileSync(join(work, 'cfg.yaml'), yaml);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(work, name), text);
  const r = await runAsync(TSX, ['run.mts', 'run', 'alfworld', '--config', 'cfg.yaml', ...args], { cwd: work, timeoutMs: 120_000 });
  return { code: r.code, stderr: r.stderr, work };
}

const SIM = `llm: {provider: sim}\nembedding: {provider: local}\nmemrl:\n  alfworld:\n    env: standin\n    games_per_type: {train: 1, valid_seen: 1, valid_unseen: VU}\n`;

describe('memrl run alfworld (sim on the stand-in)', () => {
  it('runs 2 epochs with validation before training and after each epoch; outputs say household-standin', async () => {
    const { code, stderr, work } = await memrl(['--epochs', '2', '--batch-size', '3', '--method', 'memrl'], SIM.replace('VU', '1'));
    expect(stderr).toContain('household-standin');
    expect(code).toBe(0);
    const root = join(work, 'results', 'alfworld');
    const dir = join(root, readdirSync(root)[0]!);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.env).toBe('household-standin');
    expect(manifest.benchmark).toBe('alfworld');
    const rows = readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const count = (epoch: number, phase: string) => rows.filter((r) => r.epoch === epoch && r.phase === phase).length;
    expect([count(0, 'valid'), count(1, 'train'), count(1, 'valid'), count(2, 'train'), count(2, 'valid')]).toEqual([6, 6, 6, 6, 6]);
    const traces = readFileSync(join(dir, 'traces.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(traces).toHaveLength(rows.length);
    for (const r of rows) {
      expect(r.steps).toBeGreaterThan(0);
      expect(r.steps).toBeLessThanOrEqual(30);
      // The conversation lives in traces.jsonl, one line per outcome row.
      expect(r.extra.transcript).toBeUndefined();
      const trace = traces.find((t) => t.taskId === r.taskId && t.epoch === r.epoch && t.phase === r.phase);
      expect(trace?.transcript.length).toBe(r.steps);
      expect(r.success).toBe(r.status === 'pass');
    }
    expect(rows.some((r) => r.success)).toBe(true);
    expect(rows.some((r) => !r.success)).toBe(true);
  }, 120_000);

  it('passk: one attempt per unsolved game per epoch', async () => {
    const { code, work } = await memrl(['--epochs', '2', '--method', 'passk', '--no-run-validation'], SIM.replace('VU', '1'));
    expect(code).toBe(0);
    const root = join(work, 'results', 'alfworld');
    const rows = readFileSync(join(root, readdirSync(root)[0]!, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const solved1 = new Set(rows.filter((r) => r.epoch === 1 && r.success).map((r) => r.taskId));
    const attempted2 = rows.filter((r) => r.epoch === 2 && r.status !== 'skipped').map((r) => r.taskId);
    expect(attempted2.length).toBe(new Set(attempted2).size);
    for (const id of attempted2) expect(solved1.has(id)).toBe(false);
  }, 120_000);

  it('a game file that does not exist gives one clear line', async () => {
    const { code, stderr } = await memrl(['--game-file', 'standin/train/pick_and_place/0042'], SIM.replace('VU', '1'));
    expect(code).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--game-file: game file standin\/train\/pick_and_place\/0042 does not exist/);
  }, 60_000);

  it('a split with no games gives one clear line', async () => {
    const { code, stderr } = await memrl(['--split', 'valid_unseen'], SIM.replace('VU', '0'));
    expect(code).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ALFWorld valid_unseen split has no games');
  }, 60_000);

  it('a train split with no games gives one clear line', async () => {
    const { code, stderr } = await memrl([], SIM.replace('VU', '1').replace('train: 1', 'train: 0'));
    expect(code).toBe(2);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ALFWorld train split has no games (household-standin)');
  }, 60_000);

  it('--env alfworld without the package stops at once with the install commands', async () => {
    const { code, stderr, work } = await memrl(['--env', 'alfworld', '--env-config', 'env.yaml'], 'llm: {provider: sim}\nembedding: {provider: local}\n');
    void work;
    expect(code).not.toBe(0);
    // env.yaml is missing here: that is reported first; with it present the install line follows (next test).
    expect(stderr).toMatch(/env\.yaml does not exist/);
  }, 60_000);

  it('--env alfworld with an env config but no package: one line with pip install alfworld && alfworld-download', async () => {
    const { code, stderr } = await memrl(['--env', 'alfworld', '--env-config', 'env.yaml'], 'llm: {provider: sim}\nembedding: {provider: local}\n', { 'env.yaml': 'dataset: {data_path: /nowhere}\n' });
    expect(code).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('pip install alfworld && alfworld-download');
  }, 60_000);
});

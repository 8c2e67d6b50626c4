/**
 * `--replay <run-dir>`: a finished `memrl run bcb` re-run from its recorded replies
 * with the provider gone gives the same outcome matrix and metrics.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import type { OutcomeRow } from '../../src/metrics/outcome-row.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-replay-'));
const KEY = 'sk-replay-secret-5150';

// Three different wrong answers; which one a call gets depends on arrival order, so
// only a faithful recording can reproduce the live run.
const ANSWERS = [
  '```python\ndef task_func(*args, **kwargs):\n    return None\n```\n',
  '```python\ndef task_func(*args, **kwargs):\n    raise ValueError("nope")\n```\n',
  '```python\ndef task_func(*args, **kwargs) return 1\n```\n',
];

beforeAll(async () => {
  const bw = await checkBwrap();
  if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  return runMemrl(args, { cwd: work, env });
}

function onlyRun(outDir: string): string {
  const runs = readdirSync(join(work, outDir, 'bcb'));
  expect(runs).toHaveLength(1);
  return join(work, outDir, 'bcb', runs[0] as string);
}

/** A row without what legitimately differs between a live run and its replay. */
function comparable(r: OutcomeRow): unknown {
  const { latencyMs: _l, finishedAt: _f, extra, ...rest } = r;
  const { evalMs: _e, cacheHits: _c, ...keep } = (extra ?? {}) as Record<string, unknown>;
  return { ...rest, extra: keep };
}

function compare(live: string, replay: string): void {
  const a = readOutcomeRows(join(live, 'outcomes.jsonl')).rows;
  const b = readOutcomeRows(join(replay, 'outcomes.jsonl')).rows;
  expect(b.length).toBe(a.length);
  expect(b.map(comparable)).toEqual(a.map(comparable));
  expect(readFileSync(join(replay, 'metrics.json'), 'utf8')).toBe(readFileSync(join(live, 'metrics.json'), 'utf8'));
  // Memories too, minus their wall-clock timestamps.
  const memories = (dir: string) =>
    readFileSync(join(dir, 'memories.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const { createdAt: _c, updatedAt: _u, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return rest;
      });
  expect(memories(replay)).toEqual(memories(live));
  // Every agent reply of the replay came from the recording.
  expect(b.every((r) => (r.extra as { cacheHits?: number } | undefined)?.cacheHits === 1)).toBe(true);
  expect(a.some((r) => (r.extra as { cacheHits?: number } | undefined)?.cacheHits !== undefined)).toBe(false);
}

describe('memrl run bcb --replay', () => {
  it('replays a real-provider run (temperature 0.8) with the server closed: same outcomes, metrics and memories, zero calls', async () => {
    const server: OpenAITestServer = await startOpenAIServer({
      chat: (req, n) => {
        const body = req.body as { messages: { role: string; content: string }[] };
        const isAgent = body.messages[0]?.role === 'system' && body.messages[0].content.includes('senior Python engineer');
        return isAgent ? (ANSWERS[n % ANSWERS.length] as string) : `Lesson ${n}: read the task's return contract first.`;
      },
    });
    writeFileSync(
      join(work, 'live.yaml'),
      [
        'llm:',
        '  provider: openai',
        '  api_key: ${TEST_KEY}',
        `  base_url: ${server.url}`,
        '  model: test-coder-1',
        '  temperature: 0.8',
        'embedding:',
        '  provider: openai',
        '  api_key: ${TEST_KEY}',
        `  base_url: ${server.url}`,
        '  model: test-embed-1',
        'memrl:',
        '  concurrency: 3',
        '',
      ].join('\n'),
    );
    const args = ['run', 'bcb', '--config', 'live.yaml', '--epochs', '2', '--limit', '3'];
    const live = await runCli([...args, '--output-dir', 'live'], { TEST_KEY: KEY });
    expect(live.stderr).toMatch(/done: 2\/2/);
    const liveDir = onlyRun('live');
    const agentCalls = server.chatRequests().filter((q) => JSON.stringify(q.body).includes('senior Python engineer')).length;
    expect(agentCalls).toBe(6);
    await server.close();

    // No key in the environment either: a replay needs none.
    const replay = await runCli([...args, '--output-dir', 'replayed', '--replay', liveDir], { TEST_KEY: 'sk-unused-placeholder-key' });
    expect(replay.stderr).toMatch(/done: 2\/2/);
    expect(replay.code).toBe(0);
    const replayDir = onlyRun('replayed');
    compare(liveDir, replayDir);
    expect(readFileSync(join(liveDir, 'responses.jsonl'), 'utf8').includes(KEY)).toBe(false);
    const summary = JSON.parse(readFileSync(join(replayDir, 'summary.json'), 'utf8'));
    // Nothing billed: every call is a cached call.
    expect(summary.usage.total.calls).toBe(0);
    expect(summary.usage.byRole.agent.cachedCalls).toBe(6);
    expect(JSON.parse(readFileSync(join(replayDir, 'run.json'), 'utf8')).cache.replayOf).toBe(liveDir);
  }, 600_000);

  it('replays a sim run, and stops with the task named when the recording lacks a reply', async () => {
    writeFileSync(join(work, 'sim.yaml'), 'llm:\n  provider: sim\nembedding:\n  provider: local\nmemrl:\n  concurrency: 2\n');
    const args = ['run', 'bcb', '--config', 'sim.yaml', '--limit', '3', '--method', 'memrl'];
    const live = await runCli([...args, '--epochs', '2', '--output-dir', 'sim-live']);
    expect(live.stderr).toMatch(/done: 2\/2/);
    const liveDir = onlyRun('sim-live');
    const replay = await runCli([...args, '--epochs', '2', '--output-dir', 'sim-replayed', '--replay', liveDir]);
    expect(replay.stderr).toMatch(/done: 2\/2/);
    compare(liveDir, onlyRun('sim-replayed'));

    // Epoch 3 was never recorded: a clear error naming the task, not a live call.
    const more = await runCli([...args, '--epochs', '3', '--output-dir', 'sim-more', '--replay', liveDir]);
    expect(more.code).not.toBe(0);
    expect(more.stderr).toMatch(/replay: no recorded reply for task \S+ \(epoch 3, train, agent\/solve\)/);

    // A different experiment is refused up front.
    const other = await runCli([...args, '--epochs', '2', '--seed', '7', '--output-dir', 'sim-other', '--replay', liveDir]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/--replay .*seed/);
  }, 600_000);
});

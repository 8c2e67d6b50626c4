/**
 * `memrl run bcb` against an OpenAI-compatible server that answers a fifth of chat
 * requests with a fault (429 + Retry-After, 500, 503, a reply slower than the
 * timeout, truncated JSON, empty content), plus one task whose calls always fail.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { ALL_FAULTS, errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-faults-'));
const MAX_RETRIES = 2;
const TIMEOUT_MS = 1000;
/** Text of one task of the first tasks of the hard split (BigCodeBench/108): its agent calls always fail. */
const POISON = 'Decomposes a time series';
let server: OpenAITestServer;

beforeAll(async () => {
  const bw = await checkBwrap();
  if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
  server = await startOpenAIServer({
    // The poisoned task gets only its own 500s, so its attempt count is exact.
    faults: { rate: 0.2, seed: 8, slowMs: TIMEOUT_MS + 800, exempt: (req) => JSON.stringify(req.body).includes(POISON) },
    chat: (req) => {
      const body = req.body as { messages: { role: string; content: string }[] };
      const isAgent = body.messages[0]?.role === 'system' && body.messages[0].content.includes('senior Python engineer');
      if (isAgent && body.messages[1]?.content.includes(POISON)) return errorReply(500, 'this task always breaks the server');
      return isAgent ? '```python\ndef task_func(*args, **kwargs):\n    return None\n```\n' : 'Return the value the task asks for.';
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return runMemrl(args, { cwd: work, env: { TEST_KEY: 'sk-fault-test-key-1' } });
}

describe('memrl run bcb through a faulty endpoint (20% faults)', () => {
  it('completes with an outcome per task, never stacks retries, and records a task that keeps failing as an error with the reason', async () => {
    writeFileSync(
      join(work, 'faulty.yaml'),
      [
        'llm:',
        '  provider: openai',
        '  api_key: ${TEST_KEY}',
        `  base_url: ${server.url}`,
        '  model: test-coder-1',
        'embedding:',
        '  provider: local',
        'memrl:',
        '  concurrency: 4',
        '  llm:',
        `    timeout_ms: ${TIMEOUT_MS}`,
        `    max_retries: ${MAX_RETRIES}`,
        '',
      ].join('\n'),
    );
    const r = await runCli(['run', 'bcb', '--config', 'faulty.yaml', '--subset', 'hard', '--epochs', '1', '--limit', '20', '--output-dir', 'out']);
    expect(r.stderr).toMatch(/done: 1\/1/);
    expect(r.code).toBe(0);

    const dir = join(work, 'out', 'bcb', readdirSync(join(work, 'out', 'bcb'))[0] as string);
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    expect(rows).toHaveLength(20);
    expect(new Set(rows.map((x) => x.taskId)).size).toBe(20);
    for (const row of rows.filter((x) => x.status === 'error')) expect(row.error, row.taskId).toMatch(/^model call failed: .+/);
    const poisoned = rows.find((x) => x.taskId === 'BigCodeBench/108');
    expect(poisoned).toMatchObject({ status: 'error', success: false });
    expect(poisoned?.error).toMatch(/500/);

    // The faults really happened, every kind of them.
    expect(new Set(server.faults.map((f) => f.kind))).toEqual(new Set(ALL_FAULTS));

    // Attempts per logical call: retries of one call resend the same body with an
    // increasing x-stainless-retry-count; a retry layer on top would restart it at 0.
    const attempts = new Map<string, string[]>();
    for (const q of server.chatRequests()) {
      const k = JSON.stringify(q.body);
      attempts.set(k, [...(attempts.get(k) ?? []), String(q.headers['x-stainless-retry-count'])]);
    }
    const counts = [...attempts.values()].map((a) => a.length);
    expect(Math.max(...counts)).toBeLessThanOrEqual(MAX_RETRIES + 1);
    for (const a of attempts.values()) expect(a).toEqual(a.map((_, i) => String(i)));
    const poisonCalls = [...attempts.entries()].filter(([k]) => k.includes(POISON) && k.includes('senior Python engineer'));
    expect(poisonCalls).toHaveLength(1);
    expect(poisonCalls[0]?.[1]).toHaveLength(MAX_RETRIES + 1);
    // For the report: attempt histogram.
    const histogram: Record<number, number> = {};
    for (const c of counts) histogram[c] = (histogram[c] ?? 0) + 1;
    console.log(`faults: ${server.faults.map((f) => f.kind).join(', ')}; attempts per call: ${JSON.stringify(histogram)}; statuses: ${rows.map((x) => x.status).join(', ')}`);
  }, 600_000);
});

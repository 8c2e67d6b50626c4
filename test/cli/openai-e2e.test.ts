/**
 * `memrl run bcb` with a real provider: the CLI talks HTTP to an OpenAI-compatible
 * server on 127.0.0.1 (chat and embeddings), and the tests run in the real sandbox.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-openai-e2e-'));
const KEY = 'sk-loopback-secret-7731';
let server: OpenAITestServer;

/** A wrong but runnable answer, so every task fails fast and writes a reflection. */
const WRONG = 'Here you go.\n\n```python\ndef task_func(*args, **kwargs):\n    return None\n```\n';

beforeAll(async () => {
  server = await startOpenAIServer({
    chat: (req) => {
      const body = req.body as { messages: { role: string; content: string }[] };
      // Agent calls carry the BCB system prompt and get code; memory-writing calls get a reflection.
      const isAgent = body.messages[0]?.role === 'system' && body.messages[0].content.includes('senior Python engineer');
      return isAgent ? WRONG : 'Assumed the function could return nothing; it must compute the requested value.';
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return runMemrl(args, { cwd: work, env });
}

describe('memrl run bcb against an OpenAI-compatible endpoint', () => {
  it('sends chat and embedding requests with the key, injects memories on the second epoch, and never writes the key', async () => {
    writeFileSync(
      join(work, 'real.yaml'),
      [
        'llm:',
        '  provider: openai',
        '  api_key: ${TEST_KEY}',
        `  base_url: ${server.url}`,
        '  model: test-coder-1',
        '  temperature: 0',
        'embedding:',
        '  provider: openai',
        '  api_key: ${TEST_KEY}',
        `  base_url: ${server.url}`,
        '  model: test-embed-1',
        'experiment:',
        '  experiment_name: loopback',
        'memrl:',
        '  concurrency: 2',
        '',
      ].join('\n'),
    );
    const r = await runCli(['run', 'bcb', '--config', 'real.yaml', '--epochs', '2', '--limit', '2', '--output-dir', 'out'], { TEST_KEY: KEY });
    expect(r.stderr).toMatch(/done: 2\/2/);
    expect(r.code).toBe(0);

    const chats = server.chatRequests();
    expect(chats.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(chats.every((q) => (q.body as { model: string }).model === 'test-coder-1')).toBe(true);
    expect(server.embeddingRequests().length).toBeGreaterThan(0);
    // 2 tasks × 2 epochs agent calls + one reflection per episode.
    expect(chats).toHaveLength(8);

    const dir = join(work, 'out', 'bcb', readdirSync(join(work, 'out', 'bcb'))[0] as string);
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    expect(rows.map((x) => x.status)).toEqual(['fail', 'fail', 'fail', 'fail']);
    // Epoch 2 retrieves the task's own epoch-1 memory (same key, cosine 1) and shows it in the prompt.
    const second = rows.filter((x) => x.epoch === 2);
    expect(second.every((x) => x.retrievedIds.length > 0)).toBe(true);
    const agentPrompts = chats.filter((q) => JSON.stringify(q.body).includes('senior Python engineer'));
    expect(agentPrompts.slice(2).every((q) => JSON.stringify(q.body).includes('Assumed the function could return nothing'))).toBe(true);

    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ model: 'openai:test-coder-1', simulated: false });
    expect(summary.usage.byRole.agent.calls).toBe(4);
    expect(summary.usage.byRole.memory.calls).toBe(4);
    expect(summary.usage.byRole.embedding.calls).toBeGreaterThan(0);
    for (const f of readdirSync(dir)) {
      if (f !== 'tb') expect(readFileSync(join(dir, f), 'utf8').includes(KEY), f).toBe(false);
    }
    expect(readFileSync(join(dir, 'log.jsonl'), 'utf8').length).toBeGreaterThan(0); // the log lives in the run folder, checked above
  }, 300_000);

  it('stops at once with one line when the endpoint rejects the key, and keeps the run resumable', async () => {
    server.setChat(() => errorReply(401, 'Incorrect API key provided'));
    const r = await runCli(['run', 'bcb', '--config', 'real.yaml', '--epochs', '2', '--limit', '2', '--output-dir', 'out401'], { TEST_KEY: KEY });
    expect(r.code).not.toBe(0);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/401/);
    expect(last).toMatch(/--resume/);
    expect(r.stderr.includes(KEY)).toBe(false);
    const dir = join(work, 'out401', 'bcb', readdirSync(join(work, 'out401', 'bcb'))[0] as string);
    expect(readFileSync(join(dir, 'outcomes.jsonl'), 'utf8')).toBe('');
  }, 120_000);
});

/**
 * `memrl run <benchmark> --profile paper`, as a user runs it, against a logging
 * OpenAI-compatible server on 127.0.0.1: with a pack imported by `memrl prompts import`
 * into the profile's default folder (from a synthetic checkout in the reference's
 * layout), every benchmark sends the reference's prompts, models, temperatures and
 * token limits, and run.json says which profile ran and what it did not match.
 * Build first (npm run build).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptNamespaces } from '../../src/app/prompts/pack.js';
import { builtinRegistry } from '../../src/app/registry.js';
import { requireMariadb } from '../llb/require-mariadb.js';
import { requireBcbPython } from '../env/require-sandbox.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { startOpenAIServer, type OpenAITestServer, type ReceivedRequest } from '../helpers/openai-server.js';
import { syntheticCheckout } from '../helpers/reference-checkout.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-paper-profile-'));
const packDir = join(work, 'cache', 'memrl', 'prompts', 'reference');
const KEY = 'sk-paper-profile-5150';
let server: OpenAITestServer;
const sandbox = await requireBcbPython();
const mariadb = await requireMariadb();

/** The models the reference's YAML files name, so GET /models lists them all. */
const SERVED = ['gpt-4o-mini', 'gemini-3-pro', 'gpt-4o-2024-08-06', 'gpt-5-mini', 'text-embedding-3-large'];

beforeAll(async () => {
  assertBuilt();
  server = await startOpenAIServer({
    models: SERVED,
    chat: (req) => (req.body?.model === 'gpt-4o-2024-08-06' ? JSON.stringify({ extracted_final_answer: 'B', correct: 'no' }) : 'Action: Answer\nFinal Answer: 0\n```python\ndef task_func():\n    return 0\n```'),
  });
  // The pack, imported by the CLI into the folder the profile reads (XDG_CACHE_HOME/memrl/prompts/reference).
  const checkout = join(work, 'MemRL');
  for (const [path, text] of Object.entries(syntheticCheckout(promptNamespaces(builtinRegistry())))) {
    mkdirSync(dirname(join(checkout, path)), { recursive: true });
    writeFileSync(join(checkout, path), text);
  }
  const imported = await memrl(['prompts', 'import', checkout]);
  expect(imported.stderr).toBe('');
  expect(imported.stdout).toContain(packDir);
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

function memrl(args: string[], extra: Record<string, string> = {}) {
  return runMemrl(args, { cwd: work, env: { XDG_CACHE_HOME: join(work, 'cache'), OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server?.url ?? '', ...extra }, timeoutMs: 240_000 });
}

const pack = (slot: string) => readFileSync(join(packDir, slot), 'utf8');
const systemOf = (req: ReceivedRequest) => String(req.body.messages[0].content);
/** Calls whose system message opens with the pack's template `slot` (memrl's templates drop trailing blanks). */
const opensWith = (reqs: ReceivedRequest[], ...slots: string[]) => reqs.filter((q) => q.body.messages[0]?.role === 'system' && slots.some((slot) => systemOf(q).startsWith(pack(slot).trimEnd())));
/** The memory writer's calls (a script on success, a reflection on failure): the pack's memory/ templates, the run's model. */
const writerCalls = (reqs: ReceivedRequest[]) => reqs.filter((q) => /synthetic memrl\/(providers\/llm\.py:OpenAILLM\.generate_script|service\/updater\.py)/.test(JSON.stringify(q.body.messages)));

/** The run's run.json (the only run of `bench` under out-<bench>). */
function manifest(bench: string): Record<string, any> {
  const root = join(work, `out-${bench}`, bench);
  return JSON.parse(readFileSync(join(root, readdirSync(root)[0]!, 'run.json'), 'utf8'));
}

/** Every request of one run: the server log is cleared between runs. */
function takeRequests(): ReceivedRequest[] {
  return server.requests.splice(0, server.requests.length);
}

function expectProfileRecorded(bench: string, unmatched: RegExp[]): void {
  const m = manifest(bench);
  expect(m.profile.name).toBe('paper');
  expect(m.prompts.name).toBe('memrl-reference');
  expect(m.fidelity.profile).toBe('reference');
  // Only what the test itself changed (fewer epochs, one task) is not matched; the prompts are.
  expect(m.profile.unmatched.join('\n')).not.toMatch(/prompts/);
  for (const re of unmatched) expect(m.profile.unmatched.some((u: string) => re.test(u))).toBe(true);
}

describe.skipIf(sandbox.skip)('bcb --profile paper', () => {
  it('sends the pack\'s system prompt to gpt-4o-mini at temperature 0 and 12800 tokens, embeds with text-embedding-3-large, validates the held-out tasks', async () => {
    const r = await memrl(['run', 'bcb', '--profile', 'paper', '--limit', '1', '--epochs', '1', '--output-dir', 'out-bcb']);
    expect(r.stderr).toMatch(/note: profile paper: the paper's setting/);
    expect(r.code).toBe(0);
    const reqs = takeRequests();
    const chats = reqs.filter((q) => q.kind === 'chat');
    const agent = opensWith(chats, 'bcb/system.md');
    // One train task, then the one held-out task: validation is on (the paper's 342).
    expect(agent).toHaveLength(2);
    for (const q of agent) expect(q.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0, max_tokens: 12800 });
    expect(systemOf(agent[0]!).trimEnd()).toBe(pack('bcb/system.md').trimEnd());
    // The held-out task sees the training memory, in the pack's memory wording.
    expect(systemOf(agent[1]!)).toContain('synthetic memrl/run/bcb_runner.py:BCBRunner._format_memory_context@2');
    // The rest is the memory writer, on the same model with the pack's memory prompts.
    expect(writerCalls(chats)).toHaveLength(chats.length - agent.length);
    for (const q of chats) expect(q.body.model).toBe('gpt-4o-mini');
    expect(reqs.filter((q) => q.kind === 'embeddings').every((q) => q.body.model === 'text-embedding-3-large')).toBe(true);
    expectProfileRecorded('bcb', [/num_sections is 1 \(--epochs\) where the paper uses 10/]);
    // BigCodeBench's effective limit under the reference: its 241 s, cut by the runner's 120 s hard timeout.
    expect(manifest('bcb').evaluator.timeoutSec).toBe(120);
  }, 300_000);
});

describe('hle --profile paper', () => {
  it('sends gemini-3-pro at 0.6 and 65536 tokens with the pack\'s format prompt, then the gpt-4o judge at 0 and 4096 with the pack\'s judge prompt', async () => {
    const r = await memrl(['run', 'hle', '--profile', 'paper', '--train', resolve('test/fixtures/hle/hle_snappy.parquet'), '--limit', '1', '--epochs', '1', '--output-dir', 'out-hle']);
    expect(r.code).toBe(0);
    const chats = takeRequests().filter((q) => q.kind === 'chat');
    const solver = opensWith(chats, 'hle/system-exact-match.md', 'hle/system-multiple-choice.md');
    const judge = chats.filter((q) => q.body.model === 'gpt-4o-2024-08-06');
    expect(solver).toHaveLength(1);
    expect(judge).toHaveLength(1);
    for (const q of solver) expect(q.body).toMatchObject({ model: 'gemini-3-pro', temperature: 0.6, max_tokens: 65536 });
    expect(writerCalls(chats).every((q) => q.body.model === 'gemini-3-pro')).toBe(true);
    expect(chats).toHaveLength(solver.length + judge.length + writerCalls(chats).length);
    for (const q of judge) {
      expect(q.body).toMatchObject({ temperature: 0, max_tokens: 4096 });
      // No JSON mode: the reference asks its judge without it (hle.judge-verdict).
      expect(q.body.response_format).toBeUndefined();
      expect(JSON.stringify(q.body.messages)).toContain('synthetic memrl/run/hle_runner.py:HLERunner.__init__:self.JUDGE_PROMPT');
    }
    expectProfileRecorded('hle', [/num_sections is 1/]);
  }, 300_000);
});

describe.skipIf(mariadb.skip)('llb --profile paper', () => {
  it('sends gpt-4o-mini at 0 and 10240 tokens, the pack\'s system prompt and db format block, and validates', async () => {
    const r = await memrl(['run', 'llb', '--profile', 'paper', '--task', 'db', '--limit', '1', '--epochs', '1', '--output-dir', 'out-llb']);
    expect(r.code).toBe(0);
    const chats = takeRequests().filter((q) => q.kind === 'chat');
    const agent = opensWith(chats, 'llb/system.md');
    // A train and a validation episode, each at least one turn.
    expect(agent.length).toBeGreaterThanOrEqual(2);
    for (const q of agent) {
      expect(q.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0, max_tokens: 10240 });
      expect(systemOf(q)).toContain(pack('llb/db-format.md').trimEnd());
    }
    expect(chats).toHaveLength(agent.length + writerCalls(chats).length);
    // The validation set ran too (the paper's LLB numbers are validation accuracy).
    const rows = readFileSync(join(work, 'out-llb', 'llb', readdirSync(join(work, 'out-llb', 'llb'))[0]!, 'outcomes.jsonl'), 'utf8');
    expect(rows).toContain('"phase":"valid"');
    expectProfileRecorded('llb', [/num_sections is 1/]);
  }, 300_000);
});

describe('alfworld --profile paper', () => {
  it('sends gpt-5-mini at 0 and 4096 tokens with the pack\'s system prompt (on the stand-in, said as not matched)', async () => {
    const r = await memrl(['run', 'alfworld', '--profile', 'paper', '--env', 'standin', '--limit', '1', '--epochs', '1', '--output-dir', 'out-alfworld']);
    expect(r.code).toBe(0);
    const chats = takeRequests().filter((q) => q.kind === 'chat');
    const agent = opensWith(chats, 'alfworld/system.md');
    expect(agent.length).toBeGreaterThan(0);
    for (const q of agent) {
      expect(q.body).toMatchObject({ model: 'gpt-5-mini', temperature: 0 });
      expect(q.body.max_tokens ?? q.body.max_completion_tokens).toBe(4096);
      expect(systemOf(q)).toBe(pack('alfworld/system.md').trimEnd());
    }
    expect(chats).toHaveLength(agent.length + writerCalls(chats).length);
    expectProfileRecorded('alfworld', [/memrl\.alfworld\.env is standin \(--env\) where the paper uses alfworld/]);
  }, 300_000);
});

describe('what the profile cannot match here', () => {
  it('a model the endpoint does not serve and a missing pack are in run.json and the banner', async () => {
    const other = await startOpenAIServer({ models: ['gpt-4o', 'text-embedding-3-large'], chat: () => '```python\ndef task_func():\n    return 0\n```' });
    try {
      const r = await memrl(['run', 'hle', '--profile', 'paper', '--train', resolve('test/fixtures/hle/hle_snappy.parquet'), '--limit', '1', '--epochs', '1', '--output-dir', 'out-unmatched', '--judge-model', 'gpt-4o'], {
        OPENAI_BASE_URL: other.url,
        XDG_CACHE_HOME: join(work, 'empty-cache'),
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/not matched: llm\.model gemini-3-pro: .* does not serve it/);
      expect(r.stderr).toMatch(/not matched: prompts: no reference pack imported .*memrl prompts import <MemRL checkout>/);
      const root = join(work, 'out-unmatched', 'hle');
      const m = JSON.parse(readFileSync(join(root, readdirSync(root)[0]!, 'run.json'), 'utf8'));
      expect(m.profile.unmatched.join('\n')).toMatch(/gemini-3-pro.*does not serve it/);
      expect(m.profile.unmatched.join('\n')).toMatch(/judge.*gpt-4o \(--judge-model\)/);
      expect(m.prompts.name).toBe('memrl');
    } finally {
      await other.close();
    }
  }, 300_000);
});

/**
 * Prompt packs from the command line: `memrl prompts export` writes memrl's own
 * templates, a run with `--prompts` sends the pack's text to the model and records
 * the pack in run.json, a bad pack stops before anything runs, and a resumed run
 * refuses a pack whose templates changed.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-prompt-pack-'));
let server: OpenAITestServer;

beforeAll(async () => {
  assertBuilt();
  server = await startOpenAIServer({
    chat: (req) => {
      const text = JSON.stringify(req.body);
      return text.includes('PACK-MARK bcb/') ? 'Done.\n\n```python\ndef task_func(*a, **k):\n    return None\n```\n' : 'Reflection: returned nothing.';
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

const memrl = (args: string[]) => runMemrl(args, { cwd: work });

/** Prepends a marker line to every template of a namespace (placeholders stay as they were). */
function mark(pack: string, namespace: string): void {
  for (const file of readdirSync(join(pack, namespace))) {
    const path = join(pack, namespace, file);
    writeFileSync(path, `PACK-MARK ${namespace}/${file}\n${readFileSync(path, 'utf8')}`);
  }
}

describe('memrl prompts export and list', () => {
  it('export writes every template slot under its namespace; list shows which come from the pack', async () => {
    const r = await memrl(['prompts', 'export', '--out', 'mine']);
    expect(r.code).toBe(0);
    const listed = (await memrl(['prompts', 'list'])).stdout.trim().split('\n');
    expect(listed.length).toBeGreaterThan(10);
    const slots = listed.map((l) => l.split(/\s+/)[0]!);
    for (const ns of ['memory', 'bcb', 'hle', 'llb', 'alfworld']) expect(slots.some((s) => s.startsWith(`${ns}/`))).toBe(true);
    for (const slot of slots) expect(readFileSync(join(work, 'mine', slot), 'utf8').length).toBeGreaterThan(0);
    expect(r.stdout).toContain(`wrote ${slots.length} templates`);
    const withPack = (await memrl(['prompts', 'list', '--prompts', 'mine'])).stdout;
    expect(withPack).toMatch(/^pack memrl \(sha256 [0-9a-f]{12}\)/);
    expect(withPack.split('\n').filter((l) => /\spack\s/.test(l))).toHaveLength(slots.length);
  });

  it('export refuses a folder holding other files', async () => {
    mkdirSync(join(work, 'notes'));
    writeFileSync(join(work, 'notes', 'todo.txt'), 'x');
    const r = await memrl(['prompts', 'export', '--out', 'notes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out .*notes: the folder exists and is not a prompt pack/);
  });
});

describe('a bad pack stops the run before it starts, in one line', () => {
  const bad = async (name: string, edit: (dir: string) => void) => {
    const dir = join(work, name);
    expect((await memrl(['prompts', 'export', '--out', name])).code).toBe(0);
    edit(dir);
    return memrl(['run', 'bcb', '--prompts', name, '--limit', '1', '--epochs', '1', '--output-dir', `out-${name}`]);
  };

  it('a placeholder memrl does not fill', async () => {
    const r = await bad('bad-placeholder', (dir) => appendFileSync(join(dir, 'bcb', readdirSync(join(dir, 'bcb'))[0]!), '{{task_secret}}\n'));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/bad-placeholder\/bcb\/.*: placeholder \{\{task_secret\}\} is not filled by memrl for bcb\/.*; available: /);
  });

  it('a file memrl has no template for, with the closest name', async () => {
    const r = await bad('bad-file', (dir) => writeFileSync(join(dir, 'bcb', 'sytem.md'), 'x'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad-file\/bcb\/sytem\.md: memrl has no template bcb\/sytem\.md \(did you mean system\.md\?\)/);
  });

  it('a namespace that does not exist', async () => {
    const r = await bad('bad-namespace', (dir) => mkdirSync(join(dir, 'bigcodebench')));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad-namespace\/bigcodebench: no prompt namespace 'bigcodebench'.*; namespaces: memory, bcb/);
  });

  it('a folder that is not there', async () => {
    const r = await memrl(['run', 'bcb', '--prompts', 'missing-pack', '--limit', '1', '--epochs', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--prompts .*missing-pack: no such folder/);
  });
});

describe('a run with a prompt pack', () => {
  it('sends the pack\'s text, records the pack in run.json, and a resume refuses a changed pack', async () => {
    expect((await memrl(['prompts', 'export', '--out', 'marked'])).code).toBe(0);
    mark(join(work, 'marked'), 'bcb');
    mark(join(work, 'marked'), 'memory');
    writeFileSync(join(work, 'marked', 'pack.json'), JSON.stringify({ name: 'marked', source: 'a test' }));
    writeFileSync(
      join(work, 'real.yaml'),
      ['llm:', '  provider: openai', '  api_key: sk-test-pack', `  base_url: ${server.url}`, '  model: m-1', 'embedding:', '  provider: local', ''].join('\n'),
    );
    const r = await runMemrl(['run', 'bcb', '--config', 'real.yaml', '--prompts', 'marked', '--limit', '2', '--epochs', '1', '--output-dir', 'out-marked'], { cwd: work });
    expect(r.stderr).toMatch(/done: 1\/1/);
    const chats = server.chatRequests().map((q) => JSON.stringify(q.body));
    // Two agent calls (bcb templates) and two memory-writing calls (the memory namespace), all from the pack.
    const writer = chats.filter((c) => c.includes('PACK-MARK memory/'));
    const agent = chats.filter((c) => !c.includes('PACK-MARK memory/'));
    expect(agent).toHaveLength(2);
    expect(writer).toHaveLength(2);
    expect(agent.every((c) => c.includes('PACK-MARK bcb/'))).toBe(true);

    const runDir = join(work, 'out-marked', 'bcb', readdirSync(join(work, 'out-marked', 'bcb'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { prompts: { name: string; hash: string; source: string; overrides: string[] }; fidelity: { profile: string } };
    expect(manifest.prompts).toMatchObject({ name: 'marked', source: 'a test' });
    expect(manifest.prompts.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.prompts.overrides.some((s) => s.startsWith('bcb/'))).toBe(true);
    expect(manifest.fidelity.profile).toBe('reference');

    appendFileSync(join(work, 'marked', 'bcb', readdirSync(join(work, 'marked', 'bcb'))[0]!), 'one more line\n');
    const resumed = await runMemrl(['run', 'bcb', '--resume', runDir, '--epochs', '2'], { cwd: work, env: { OPENAI_API_KEY: 'sk-test-pack' } });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/--resume .*: the prompt pack .*marked is not the one the run started with \(marked, sha256 [0-9a-f]{12}\); restore its templates, or start a new run/);
  });
});

/**
 * `memrl fidelity <dir>` as a user runs it: against the vectors recorded from the
 * reference (../shared/fidelity), and against broken or altered copies of them made in
 * a temporary folder (never copied into the repo).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl } from '../helpers/cli.js';

const VECTORS = resolve('../shared/fidelity');
const work = mkdtempSync(join(tmpdir(), 'memrl-fidelity-'));

beforeAll(() => assertBuilt());
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A check of the whole folder: 17-35 s alone on a slow 2-core machine, over 60 s next to another test file. */
const WHOLE_FOLDER_MS = 240_000;
const memrl = (args: string[]) => runMemrl(args, { cwd: work });

/** A vector file's header line and vectors, read from the shared folder. */
function vectorsOf(file: string): { header: string; lines: string[] } {
  const [header, ...lines] = readFileSync(join(VECTORS, file), 'utf8').split('\n').filter((l) => l.trim() !== '');
  return { header: header!, lines };
}

describe('memrl fidelity against the recorded reference vectors', () => {
  it('in reference mode every vector of every file agrees, and each file gets its N/N line', async () => {
    const r = await memrl(['fidelity', VECTORS]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const file of readdirSync(VECTORS).filter((f) => f.endsWith('.jsonl'))) {
      const n = vectorsOf(file).lines.length;
      expect(r.stdout).toMatch(new RegExp(`^  ${file.replace('.', '\\.')}\\s+${n}/${n} `, 'm'));
    }
    expect(r.stdout).toMatch(/^\d+\/\d+ vectors agree$/m);
  }, WHOLE_FOLDER_MS);

  it('in fixed mode every difference is credited to a switch that docs/fidelity.md lists', async () => {
    const r = await memrl(['fidelity', VECTORS, '--fidelity', 'fixed', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { files: { mismatches: { explainedBy: string[] }[] }[] };
    const credited = new Set(report.files.flatMap((f) => f.mismatches.flatMap((m) => m.explainedBy)));
    expect(report.files.every((f) => f.mismatches.every((m) => m.explainedBy.length > 0))).toBe(true);
    const docs = readFileSync(resolve('docs/fidelity.md'), 'utf8');
    for (const id of credited) expect(docs).toContain(`\`${id}\``);
  }, WHOLE_FOLDER_MS);
});

describe('memrl fidelity on bad input', () => {
  it('a vector that memrl does not reproduce: exit 1, the file counted short and the vector shown', async () => {
    const { header, lines } = vectorsOf('bcb_extract_code.jsonl');
    const altered = JSON.parse(lines[1]!) as { output: { code: string } };
    altered.output.code = `${altered.output.code}\n# not what the reference returned`;
    writeFileSync(join(work, 'altered.jsonl'), [header, lines[0], JSON.stringify(altered), ...lines.slice(2)].join('\n') + '\n');
    const r = await memrl(['fidelity', join(work, 'altered.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`altered\\.jsonl\\s+${lines.length - 1}/${lines.length} .*1 unexplained`));
    expect(r.stdout).toContain('altered.jsonl:3');
    expect(r.stdout).toContain('not what the reference returned');
    expect(r.stdout).toMatch(/^1 of \d+ vectors differ from the reference/m);
  });

  it('a malformed line: one line naming the file and line, exit 2', async () => {
    const { header, lines } = vectorsOf('hle_judge.jsonl');
    writeFileSync(join(work, 'broken.jsonl'), [header, lines[0], '{"input": {"judge_text": "x"', lines[1]].join('\n'));
    const r = await memrl(['fidelity', join(work, 'broken.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/broken\.jsonl:3: not JSON/);
  });

  it('a vector without input/output, or one whose input does not fit its target, names the line', async () => {
    const { header } = vectorsOf('bcb_extract_code.jsonl');
    writeFileSync(join(work, 'shape.jsonl'), [header, '{"input": {"reply": "x"}}'].join('\n'));
    const r = await memrl(['fidelity', join(work, 'shape.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shape\.jsonl:2: a vector is \{"input": \.\.\., "output": \.\.\.\}/);
  });

  it('a target memrl does not know: names it and lists the known ones, exit 2', async () => {
    writeFileSync(join(work, 'unknown.jsonl'), '{"target": "gsm8k_answer", "reference": "x.py:f"}\n{"input": 1, "output": 1}\n');
    const r = await memrl(['fidelity', join(work, 'unknown.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown\.jsonl:1: memrl has no fidelity target 'gsm8k_answer'; known: .*bcb_extract_code.*llb_db_parse_action/);
  });

  it('a missing folder, a folder without vector files, or a file without a header: one line each, exit 2', async () => {
    expect((await memrl(['fidelity', join(work, 'nowhere')])).stderr).toMatch(/no such file or folder/);
    const empty = mkdtempSync(join(work, 'empty-'));
    expect((await memrl(['fidelity', empty])).stderr).toMatch(/no \*\.jsonl vector files/);
    writeFileSync(join(work, 'headless.jsonl'), '{"input": 1, "output": 1}\n');
    const r = await memrl(['fidelity', join(work, 'headless.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/headless\.jsonl:1: the first line must be a header/);
  });

  it('an unknown switch is refused with the list of known ones', async () => {
    const r = await memrl(['fidelity', VECTORS, '--fidelity-switch', 'bcb.nonsense=memrl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--fidelity-switch bcb\.nonsense: unknown switch; known: /);
  });
});

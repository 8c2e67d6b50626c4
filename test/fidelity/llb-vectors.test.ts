/**
 * LLB's fidelity targets over the vectors recorded from the reference
 * (../shared/fidelity, read in place): every vector agrees in the reference profile,
 * and in the fixed profile every difference is credited to one of LLB's bug switches.
 * Missing vectors skip, except under CI=true where they fail.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFidelity } from '../../src/app/fidelity.js';
import { builtinRegistry } from '../../src/app/registry.js';
import { packageRoot } from '../../src/util/paths.js';
import { LLB_FIDELITY_SWITCHES } from '../../src/bench/llb/switches.js';
import { llbFidelityTargets } from '../../src/bench/llb/fidelity.js';
import { REFERENCE_FIDELITY } from '../../src/util/fidelity.js';

const VECTORS = resolve(packageRoot(), '..', 'shared', 'fidelity');
const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');
const FILES = ['llb_db_parse_action', 'llb_db_validate_direct', 'llb_db_md5_answer', 'llb_os_parse_action', 'memctx_llb'];
const present = existsSync(join(VECTORS, 'memctx_llb.jsonl'));
if (!present && !IN_CI) process.stderr.write(`[skip] LLB fidelity vectors: none at ${VECTORS}\n`);

describe.skipIf(!present && !IN_CI)('LLB fidelity vectors (../shared/fidelity)', () => {
  const registry = builtinRegistry();

  it.each(FILES)('%s: every vector agrees in the reference profile', async (name) => {
    const [report] = await checkFidelity(join(VECTORS, `${name}.jsonl`), registry, { profile: 'reference' });
    expect(report!.total).toBeGreaterThan(0);
    expect(report!.mismatches.map((m) => ({ line: m.line, got: m.got, expected: m.expected }))).toEqual([]);
    expect(report!.agree).toBe(report!.total);
  });

  it('fixed profile: each difference is credited to LLB bug switches that name that target', async () => {
    const bugs = new Set(LLB_FIDELITY_SWITCHES.filter((s) => s.class === 'bug').map((s) => s.id));
    const credited = new Map<string, number>();
    for (const name of FILES) {
      const [report] = await checkFidelity(join(VECTORS, `${name}.jsonl`), registry, { profile: 'fixed' });
      for (const m of report!.mismatches) {
        // A difference two switches each produce on their own (db-parse and db-statement-split on one reply) is credited to both.
        expect(m.explainedBy.length, `${name}:${m.line}`).toBeGreaterThan(0);
        for (const id of m.explainedBy) {
          expect(bugs.has(id), `${name}:${m.line} credited to ${id}`).toBe(true);
          credited.set(id, (credited.get(id) ?? 0) + 1);
        }
      }
    }
    // The recorded edge cases exercise each parsing/scoring fix.
    expect([...credited.keys()].sort()).toEqual(['llb.db-direct-validator', 'llb.db-parse', 'llb.db-statement-split', 'llb.os-parse']);
  });

  it("memctx_llb's structure tells a kept trajectory, a wrong number or a missing type from wording", async () => {
    const target = llbFidelityTargets().find((t) => t.name === 'memctx_llb')!;
    const input = {
      task: 'db',
      budget_tokens: null,
      records: [
        { content: 'Task: a\n\nSCRIPT:\nstep', metadata: { success: true, type: 'procedure' } },
        { content: 'What went wrong:\nx\n\nFailed approach:\nuser: long', metadata: { success: false, type: 'adjustment' } },
      ],
    };
    const ours = (await target.run(input, { fidelity: REFERENCE_FIDELITY })) as { text: string; headers: string[] };
    const same = target.structure!(ours, input);
    const variant = (text: string, headers = ours.headers) => target.structure!({ ...ours, text, headers }, input);
    expect(variant(ours.text.replace('What went wrong:\nx', 'What went wrong:\nx\n\nFailed approach:\nuser: long'))).not.toEqual(same);
    expect(variant(ours.text.replace(ours.headers[1]!, '(failed #2, adjustment)'), [ours.headers[0]!, '(failed #2, adjustment)'])).not.toEqual(same);
    expect(variant(ours.text.replace(ours.headers[0]!, '(worked #1)'), ['(worked #1)', ours.headers[1]!])).not.toEqual(same);
  });

  it('a single switch changes only its own target', async () => {
    const [parse] = await checkFidelity(join(VECTORS, 'llb_db_parse_action.jsonl'), registry, { profile: 'reference', overrides: { 'llb.os-parse': 'memrl' } });
    expect(parse!.mismatches).toEqual([]);
    const [os] = await checkFidelity(join(VECTORS, 'llb_os_parse_action.jsonl'), registry, { profile: 'reference', overrides: { 'llb.os-parse': 'memrl' } });
    expect(os!.mismatches.length).toBeGreaterThan(0);
    expect(new Set(os!.mismatches.flatMap((m) => m.explainedBy))).toEqual(new Set(['llb.os-parse']));
  });
});

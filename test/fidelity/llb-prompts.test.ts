/**
 * LLB's `referencePrompts` locations over a synthetic Python tree laid out like a
 * MemRL checkout (our own strings): every location is found, every field it holds
 * maps onto a variable memrl's own template uses, and a module constant holding
 * several strings (LifelongAgentBench's TASK_REQUIREMENT_DICT) is read by position.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asset } from '../../src/util/paths.js';
import { loadTemplate, placeholders } from '../../src/util/template.js';
import { LLB_REFERENCE_PROMPTS } from '../../src/bench/llb/reference-prompts.js';
import { LLB_PROMPT_DIR } from '../../src/bench/llb/memory-context.js';

const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');
const python = spawnSync('python3', ['-c', 'print(1)']).status === 0;
const root = mkdtempSync(join(tmpdir(), 'memrl-llb-ref-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FILES: Record<string, string> = {
  'memrl/lifelongbench_eval/prompts.py': `
SYS = """
Agent prompt.
""".strip()
DEFAULT_SYSTEM_PROMPT = SYS
LLB_DB_STRICT_OUTPUT_FORMAT_CONSTRAINT = """db format""".strip()
LLB_OS_STRICT_OUTPUT_FORMAT_CONSTRAINT = "os " + "format"
`,
  'memrl/lifelongbench_eval/memory_context.py': `
def format_llb_memory_context(processed, *, task, budget_tokens=None):
    """Docstring."""
    lines = ["HEAD"]
    good = processed.get("ok", [])
    if good:
        lines.append("\\nWIN")
        for i, mem in enumerate(good):
            md = mem.get("md")
            mem_type = getattr(md, "kind", "DW") if md else "DW"
            content = mem.get("text", "")
            if not content:
                continue
            lines.append(f"<w {i + 1} {mem_type}>\\n{content}\\n")
    lines.append("\\n".join([]))
    bad = processed.get("ko", [])
    if bad:
        lines.append("\\nLOSS")
        for i, mem in enumerate(bad):
            md = mem.get("md")
            mem_type = getattr(md, "kind", "DL") if md else "DL"
            content = mem.get("text", "")
            if not content:
                continue
            lines.append(f"<l {i + 1} {mem_type}>\\n{content}\\n")
    return "\\n".join(lines)
`,
  'memrl/lifelongbench_eval/task_wrappers.py': `
def ensure_standard_prompts():
    d = ROOT / "items" / "std"
    if not (d / "db.json").is_file():
        build(str(d), "\\n\\nNext comes the question.")
    return str(d)
`,
  '3rdparty/LifelongAgentBench/src/factories/chat_history_item/offline/task_requirement.py': `
TASK_REQUIREMENT_DICT: Mapping[TaskName, str] = {
    TaskName.DB_BENCH: """db rules""",
    TaskName.OS_INTERACTION: """os rules""",
    TaskName.KNOWLEDGE_GRAPH: """kg rules""",
}
`,
  '3rdparty/LifelongAgentBench/src/tasks/instance/db_bench/task.py': `
class DBBench:
    @staticmethod
    def _construct_dataset_item(entry):
        question_prefix = entry["instruction"]
        question_suffix = (
            f"Table {table_info.name}: "
            f"{', '.join([column_info.name for column_info in column_info_list])}."
        )
        instruction = f"{question_prefix}\\n{question_suffix}"
        return instruction
`,
};

for (const [path, text] of Object.entries(FILES)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

type Segment = { text: string } | { field: string };

function extract(locators: string[]): Record<string, { segments: Segment[] } | { error: string }> {
  const r = spawnSync('python3', [asset('src/app/prompts/extract_strings.py')], { input: JSON.stringify({ root, items: locators.map((locator) => ({ locator })) }), encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const textOf = (segs: Segment[]) => segs.map((s) => ('text' in s ? s.text : `{${s.field}}`)).join('');

describe.skipIf(!python && !IN_CI)('LLB reference prompt locations', () => {
  const got = extract(LLB_REFERENCE_PROMPTS.flatMap((p) => p.from));

  it('every location is found', () => {
    const missing = Object.entries(got).filter(([, v]) => 'error' in v);
    expect(missing).toEqual([]);
  });

  it('reads the strings the locations name, by position where a scope holds several', () => {
    const slot = (name: string) => LLB_REFERENCE_PROMPTS.find((p) => p.slot === name)!;
    const joined = (name: string) => slot(name).from.map((l) => textOf((got[l] as { segments: Segment[] }).segments)).join(slot(name).join ?? '');
    expect(joined('system.md')).toBe('Agent prompt.');
    expect(joined('os-format.md')).toBe('os format');
    expect(joined('db-preamble.md')).toBe('db rules\n\nNext comes the question.');
    expect(joined('os-preamble.md')).toBe('os rules\n\nNext comes the question.');
    expect(joined('memory-header.md')).toBe('HEAD');
    expect(joined('memory-success-section.md')).toBe('\nWIN');
    expect(joined('memory-success-item.md')).toBe('<w {i + 1} {mem_type}>\n{content}\n');
    expect(joined('memory-failure-section.md')).toBe('\nLOSS');
    expect(joined('memory-failure-item.md')).toBe('<l {i + 1} {mem_type}>\n{content}\n');
    expect(joined('db-task.md')).toBe('{question_prefix}\n{question_suffix}');
  });

  it("maps every field onto a variable memrl's own template for that slot uses", () => {
    for (const spec of LLB_REFERENCE_PROMPTS) {
      const ours = new Set(placeholders(loadTemplate(LLB_PROMPT_DIR, spec.slot).text));
      for (const loc of spec.from) {
        for (const seg of (got[loc] as { segments: Segment[] }).segments) {
          if (!('field' in seg)) continue;
          const mapped = spec.fields?.[seg.field];
          expect(mapped, `${spec.slot}: field {${seg.field}}`).toBeDefined();
          expect(ours.has(mapped!), `${spec.slot}: {{${mapped}}}`).toBe(true);
        }
      }
    }
  });
});

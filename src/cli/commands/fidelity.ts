/**
 * `memrl fidelity <dir|file>`: replays vectors recorded from the reference code through
 * memrl's own parsers, scorers and memory-context builders, and prints agreement per
 * file. Exit 0 when everything agrees (or differs only where a switch says so), 1 on
 * any other difference, 2 on a malformed file or an unknown target.
 */
import type { Command } from 'commander';
import { checkFidelity, unexplained, type FileReport, type VectorMismatch } from '../../app/fidelity.js';
import type { Registry } from '../../app/registry.js';
import type { FidelityProfileName, SwitchSetting } from '../../core/index.js';
import { FlagValueError } from '../../config/flags.js';
import { EXIT } from '../exit-codes.js';
import { withExamples } from '../help.js';

interface FidelityFlags {
  fidelity: FidelityProfileName;
  fidelitySwitch?: [string, SwitchSetting][];
  prompts?: string;
  show: number;
  json?: boolean;
}

function switchArg(raw: string, previous: [string, SwitchSetting][] | undefined): [string, SwitchSetting][] {
  const m = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(reference|memrl)\s*$/.exec(raw);
  if (!m) throw new FlagValueError('Expected <switch-id>=reference or <switch-id>=memrl.');
  return [...(previous ?? []), [m[1] as string, m[2] as SwitchSetting]];
}

function shortJson(value: unknown, max = 400): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function mismatchLines(file: string, m: VectorMismatch): string[] {
  return [`    ${file}:${m.line}`, `      input    ${shortJson(m.input)}`, `      recorded ${shortJson(m.expected)}`, `      memrl    ${shortJson(m.got)}`];
}

function summary(r: FileReport): string {
  const by = new Map<string, number>();
  for (const m of r.mismatches) for (const id of m.explainedBy) by.set(id, (by.get(id) ?? 0) + 1);
  const open = r.mismatches.filter((m) => m.explainedBy.length === 0).length;
  const parts: string[] = [];
  if (by.size) parts.push(`differ by design: ${[...by].map(([id, n]) => `${id} ×${n}`).join(', ')}`);
  if (open) parts.push(`${open} unexplained`);
  return `${`${r.agree}/${r.total}`.padStart(7)}  ${r.compare === 'structure' ? 'structure' : 'exact    '}${parts.length ? `  ${parts.join('; ')}` : ''}`.trimEnd();
}

export function registerFidelityCommand(program: Command, registry: Registry): void {
  const cmd = program
    .command('fidelity')
    .description('replay input → output vectors recorded from the reference code through memrl\'s own functions; agreement per file')
    .argument('<path>', 'a folder of *.jsonl vector files (e.g. ../shared/fidelity) or one file')
    .option('--fidelity <profile>', "reference = the reference's behaviour bug for bug; fixed = with its bugs corrected (differences then must be ones a switch explains)", 'reference')
    .option('--fidelity-switch <id=setting>', 'set one switch over the profile; repeatable', switchArg)
    .option('--prompts <dir>', 'a prompt pack (e.g. from `memrl prompts import`): memory contexts are then compared word for word, not by structure')
    .option('--show <n>', 'print up to n differing vectors per file (input, recorded, memrl)', (v) => Number.parseInt(v, 10), 3)
    .option('--json', 'print the full report as JSON');
  withExamples(cmd, [
    'memrl fidelity ../shared/fidelity',
    'memrl fidelity ../shared/fidelity --fidelity fixed      # differences must be the documented switches',
    'memrl fidelity ../shared/fidelity/bcb_extract_code.jsonl --show 10',
  ]).action(async (path: string, flags: FidelityFlags) => {
      if (flags.fidelity !== 'reference' && flags.fidelity !== 'fixed') throw new FlagValueError(`--fidelity ${String(flags.fidelity)}: expected reference or fixed`);
      const reports = await checkFidelity(path, registry, {
        profile: flags.fidelity,
        overrides: Object.fromEntries(flags.fidelitySwitch ?? []),
        ...(flags.prompts ? { prompts: flags.prompts } : {}),
      });
      const open = unexplained(reports);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ profile: flags.fidelity, files: reports }, null, 2)}\n`);
      } else {
        const width = Math.max(...reports.map((r) => r.file.length));
        process.stdout.write(`memrl fidelity ${path} (profile ${flags.fidelity}${flags.prompts ? `, prompts ${flags.prompts}` : ''})\n`);
        for (const r of reports) {
          process.stdout.write(`  ${r.file.padEnd(width)} ${summary(r)}\n`);
          const shown = r.mismatches.filter((m) => m.explainedBy.length === 0).slice(0, Math.max(0, flags.show));
          for (const m of shown) process.stdout.write(`${mismatchLines(r.file, m).join('\n')}\n`);
        }
        const total = reports.reduce((n, r) => n + r.total, 0);
        const agree = reports.reduce((n, r) => n + r.agree, 0);
        const byDesign = total - agree - open.length;
        process.stdout.write(
          open.length === 0
            ? `${agree}/${total} vectors agree${byDesign ? `; ${byDesign} differ where a switch is set to memrl` : ''}\n`
            : `${open.length} of ${total} vectors differ from the reference with no switch to explain them\n`,
        );
      }
      if (open.length > 0) process.exitCode = EXIT.fault;
    });
}

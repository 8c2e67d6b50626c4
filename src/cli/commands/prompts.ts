/**
 * `memrl prompts`: the template slots memrl fills, and prompt packs that override them
 * (export memrl's own as a start; import the reference's from a MemRL checkout).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { exportPack, listSlots, loadPack } from '../../app/prompts/pack.js';
import { REFERENCE_PROMPTS_COMMIT, importReferencePrompts } from '../../app/prompts/import.js';
import type { Registry } from '../../app/registry.js';
import { withExamples } from '../help.js';

export function registerPromptsCommand(program: Command, registry: Registry): void {
  const prompts = program.command('prompts').description("list prompt templates; export memrl's as a pack, or import the reference's from a MemRL checkout");
  withExamples(prompts, [
    'memrl prompts list                                   # every slot and the file it is read from',
    'memrl prompts export --out my-prompts                # memrl\'s own templates, to edit',
    'memrl run bcb --prompts my-prompts',
    'memrl prompts import ~/src/MemRL --out reference-prompts',
  ]).addHelpText('after', 'Details: docs/fidelity.md\n');

  withExamples(
    prompts
      .command('list')
      .description('every template slot (namespace/file) and the file it is read from')
      .option('--prompts <dir>', 'show where a pack overrides memrl\'s own'),
    ['memrl prompts list', 'memrl prompts list --prompts ./reference-prompts'],
  ).action((flags: { prompts?: string }) => {
    const pack = flags.prompts ? loadPack(resolve(flags.prompts), registry) : undefined;
    if (pack) process.stdout.write(`pack ${pack.name} (sha256 ${pack.hash.slice(0, 12)})${pack.source ? `: ${pack.source}` : ''}\n`);
    for (const row of listSlots(registry, pack)) process.stdout.write(`${row.slot.padEnd(36)} ${row.fromPack ? 'pack ' : 'memrl'}  ${row.path}\n`);
  });

  withExamples(
    prompts
      .command('export')
      .description("write memrl's own templates as a prompt pack, to edit and pass with --prompts")
      .requiredOption('--out <dir>', 'folder to write (created; an existing one must be a pack)'),
    ['memrl prompts export --out my-prompts && memrl run bcb --prompts my-prompts'],
  ).action((flags: { out: string }) => {
    const pack = exportPack(resolve(flags.out), registry);
    process.stdout.write(`wrote ${pack.overrides.length} templates to ${pack.dir}\n`);
  });

  withExamples(
    prompts
      .command('import')
      .description(`read the reference's prompt strings out of a MemRL checkout (Python's ast; nothing runs) into a prompt pack (locations written against MemRL ${REFERENCE_PROMPTS_COMMIT.slice(0, 7)})`)
      .argument('<checkout>', 'root folder of a MemRL checkout (git clone https://github.com/MemTensor/MemRL)')
      .requiredOption('--out <dir>', 'folder to write the pack to'),
    ['memrl prompts import ~/src/MemRL --out reference-prompts', 'memrl run llb --config rl_llb_config.yaml --prompts reference-prompts'],
  ).action((checkout: string, flags: { out: string }) => {
    const result = importReferencePrompts(resolve(checkout), resolve(flags.out), registry);
    const note = result.commit && result.commit !== REFERENCE_PROMPTS_COMMIT ? ` (the locations were written against ${REFERENCE_PROMPTS_COMMIT.slice(0, 7)}; check \`memrl fidelity --prompts\`)` : '';
    process.stdout.write(`imported ${result.imported.length} templates from MemRL ${result.commit?.slice(0, 7) ?? '(no git commit)'} into ${result.pack.dir}${note}\n`);
  });
}

/**
 * `memrl prompts`: the template slots memrl fills, and prompt packs that override them
 * (export memrl's own as a start; import the reference's from a MemRL checkout).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { exportPack, listSlots, loadPack } from '../../app/prompts/pack.js';
import { REFERENCE_PROMPTS_COMMIT, importReferencePrompts } from '../../app/prompts/import.js';
import type { Registry } from '../../app/registry.js';
import { UserError } from '../../util/errors.js';
import { withExamples } from '../help.js';

export function registerPromptsCommand(program: Command, registry: Registry): void {
  const prompts = program.command('prompts').description("list prompt templates; export memrl's as a pack, or import the reference's from a MemRL checkout");
  withExamples(prompts, [
    'memrl prompts list                                   # every slot and the file it is read from',
    'memrl prompts export --out my-prompts                # memrl\'s own templates, to edit',
    'memrl run bcb --prompts my-prompts',
    'memrl prompts import ~/src/MemRL                     # the reference\'s wording, where --profile paper finds it',
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
      .argument('[checkout]', 'root folder of a MemRL checkout (git clone https://github.com/MemTensor/MemRL); leave out with --fetch')
      .option('--out <dir>', 'folder to write the pack to (default: where --profile paper looks: $MEMRL_PROMPTS_DIR, else ~/.cache/memrl/prompts/reference)')
      .option('--fetch', `fetch MemRL at ${REFERENCE_PROMPTS_COMMIT.slice(0, 7)} with git into a temporary folder and import from it (needs the network)`),
    [
      'memrl prompts import ~/src/MemRL                       # into the folder --profile paper reads',
      'memrl prompts import --fetch                           # git fetches MemRL at the pinned commit first',
      'memrl prompts import ~/src/MemRL --out reference-prompts && memrl run llb --prompts reference-prompts',
    ],
  ).action(async (checkout: string | undefined, flags: { out?: string; fetch?: boolean }) => {
    const { referencePackDir } = await import('../../config/profile.js');
    const out = resolve(flags.out ?? referencePackDir());
    if (checkout && flags.fetch) throw new UserError(`memrl prompts import: give a checkout (${checkout}) or --fetch, not both`, 'bad_arguments');
    if (!checkout && !flags.fetch) throw new UserError('memrl prompts import: give the root folder of a MemRL checkout, or --fetch to let git fetch one (git clone https://github.com/MemTensor/MemRL)', 'bad_arguments');
    const importFrom = (dir: string) => importReferencePrompts(dir, out, registry);
    const result = checkout ? importFrom(resolve(checkout)) : (await import('../../app/prompts/fetch.js')).withReferenceCheckout(importFrom);
    const note = result.commit && result.commit !== REFERENCE_PROMPTS_COMMIT ? ` (the locations were written against ${REFERENCE_PROMPTS_COMMIT.slice(0, 7)}; check \`memrl fidelity --prompts\`)` : '';
    process.stdout.write(`imported ${result.imported.length} templates from MemRL ${result.commit?.slice(0, 7) ?? '(no git commit)'} into ${result.pack.dir}${note}\n`);
  });
}

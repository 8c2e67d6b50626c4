/**
 * `memrl data pull|list|verify|path`: the benchmarks' datasets (each module declares its
 * files: docs/data.md). The work is in src/data/; this parses, prints and sets the exit code.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { datasetsOf } from '../../app/run-data.js';
import type { Registry } from '../../app/registry.js';
import type { DatasetSpec } from '../../data/manifest.js';
import { closest } from '../../config/issues.js';
import { UserError } from '../../util/errors.js';
import { withExamples } from '../help.js';

/** The datasets named on the command line ('all': every one that is not gated); none named: all of them. */
function pick(registry: Registry, names: readonly string[], command: string): DatasetSpec[] {
  const specs = datasetsOf(registry);
  if (names.length === 0) return specs;
  if (names.includes('all')) return specs.filter((s) => !s.gated);
  return names.map((name) => {
    const spec = specs.find((s) => s.name === name);
    if (spec) return spec;
    const near = closest(name, specs.map((s) => s.name));
    throw new UserError(`data ${command} ${name}: no such dataset${near ? ` (did you mean ${near}?)` : ''}; known: ${specs.map((s) => s.name).join(', ')}, all`, 'unknown_dataset');
  });
}

export function registerDataCommand(program: Command, registry: Registry): void {
  const data = withExamples(
    program.command('data').description("fetch the benchmarks' datasets into a cache (pull), check them against their pinned checksums (verify), show where each is (list, path)"),
    ['memrl data pull all', 'memrl data pull all --from /mnt/mirror/memrl-data', 'memrl data verify', 'memrl data list bcb'],
  );
  const plugin = (cmd: Command): Command => cmd.option('--plugin <module>', "a plug-in whose benchmark declares data files (repeatable)", (v: string, prev: string[] = []) => [...prev, v]);

  withExamples(
    plugin(
      data
        .command('pull')
        .description('fetch datasets into the cache, each file checked against its pinned sha256 ("all": every dataset but gated ones)')
        .argument('<names...>', `${datasetsOf(registry).map((d) => d.name).join(', ')} (a plug-in benchmark's too), or all`)
        .option('--from <dir>', 'copy from this mirror folder (laid out like the cache) instead of downloading'),
    ),
    ['memrl data pull bcb', 'memrl data pull all --from /mnt/mirror/memrl-data', ...datasetsOf(registry).filter((d) => d.gated).map((d) => `HF_TOKEN=hf_... memrl data pull ${d.name}   # gated: accept its terms on the hub first`)],
  ).action(async (names: string[], flags: { from?: string }) => {
    const specs = pick(registry, names, 'pull');
    if (names.includes('all')) for (const s of datasetsOf(registry).filter((x) => x.gated)) process.stderr.write(`${s.name}: gated, so not part of all: memrl data pull ${s.name} (accept its terms at ${s.gated}, set HF_TOKEN)\n`);
    const tty = process.stderr.isTTY === true;
    // The downloader (undici) and the Parquet reader load only when a pull runs, not for --help.
    const { pullDataset } = await import('../../data/pull.js');
    for (const spec of specs) await pullDataset(spec, { ...(flags.from ? { from: resolve(flags.from) } : {}), err: (t) => process.stderr.write(t), tty });
  });

  withExamples(
    plugin(data.command('list').description('each dataset: release, licence, and per file its source, size, sha256, where its copy is, and present / missing / corrupt').argument('[names...]', 'datasets (default: all)')),
    ['memrl data list', 'memrl data list bcb'],
  ).action(async (names: string[]) => {
    const { fileRows, formatList } = await import('../../data/status.js');
    process.stdout.write(formatList(await fileRows(pick(registry, names, 'list'))));
  });

  withExamples(
    plugin(
      data
        .command('verify')
        .description('hash every copy against the manifest: exit 0 when each is the release, 2 when one is not (or, for datasets named, is missing)')
        .argument('[names...]', 'datasets (default: all; missing files then only listed)'),
    ),
    ['memrl data verify', 'memrl data verify bcb llb'],
  ).action(async (names: string[]) => {
    const { fileRows, formatVerify, rowAdvice } = await import('../../data/status.js');
    const rows = await fileRows(pick(registry, names, 'verify'));
    process.stdout.write(formatVerify(rows));
    const bad = rows.filter((r) => r.status === 'corrupt' || (names.length > 0 && r.status === 'missing'));
    if (bad.length) throw new UserError(`data verify: ${bad.length} file(s) not the release: ${bad.map((r) => `${r.spec.name}: ${r.file.path} (${rowAdvice(r)})`).join('; ')}`, 'data_not_verified');
  });

  withExamples(
    plugin(data.command('path').description('the copy of each file a run reads (cache, then the mirror, then the embedded sample), one per line').argument('<name>', 'a dataset')),
    ['memrl data path bcb', 'memrl data path llb | xargs ls -l'],
  ).action(async (name: string) => {
    const { locateOrSample, originWords } = await import('../../data/locations.js');
    const [spec] = pick(registry, [name], 'path');
    for (const file of spec!.files) {
      const found = locateOrSample(file);
      if (!found) throw new UserError(`data path ${name}: ${file.path} has no copy; memrl data pull ${name} fetches it`, 'data_missing');
      if (found.origin === 'sample') process.stderr.write(`${file.path}: ${originWords('sample')} (${file.sample!.what})\n`);
      process.stdout.write(`${found.path}\n`);
    }
  });
}

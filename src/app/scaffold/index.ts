/**
 * `memrl plugin new <benchmark|method> <dir>`: a plug-in folder that runs as generated.
 * It holds the plug-in (index.ts, from templates/<kind>/), a package.json that depends
 * on memrl (for its types, its CLI and the test), a tsconfig, a README and one test that
 * runs the plug-in through memrl offline. Templates are files (templates/), filled by
 * name; a folder that already has files is refused, nothing is overwritten.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { UserError } from '../../util/errors.js';
import { asset, packageRoot } from '../../util/paths.js';
import { memrlVersion } from '../../util/version.js';

export type PluginKind = 'benchmark' | 'method';

export interface ScaffoldOptions {
  /** The plug-in's name (default: from the folder's name). */
  name?: string;
  /** How package.json names the memrl to depend on (default: this memrl: its version when installed from a registry, else its folder). */
  memrl?: string;
  cwd?: string;
}

const NAME = /^[a-z][a-z0-9_-]*$/;
const TEMPLATES = 'src/app/scaffold/templates';

/** The default dependency on this memrl: a registry version, or the checkout it runs from (file:). */
function thisMemrl(): string {
  const root = packageRoot();
  return root.split('/').includes('node_modules') ? `^${memrlVersion()}` : `file:${root}`;
}

function nameFrom(dir: string): string {
  const base = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '');
  return base || 'plugin';
}

const titled = (name: string): string => name.replace(/[-_]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());

function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (m, key: string) => vars[key] ?? m);
}

/** Writes the plug-in folder; returns the files written (relative to it). */
export function scaffoldPlugin(kind: PluginKind, dir: string, opts: ScaffoldOptions = {}): string[] {
  const target = resolve(opts.cwd ?? process.cwd(), dir);
  if (existsSync(target) && readdirSync(target).length > 0) throw new UserError(`memrl plugin new: ${dir} is not empty; give a new folder`, 'scaffold_exists');
  const name = opts.name ?? nameFrom(dir);
  if (!NAME.test(name)) throw new UserError(`memrl plugin new: --name ${name} is not a lowercase name (a letter, then letters, digits, - or _)`, 'bad_input');
  const runArgs = kind === 'benchmark' ? `'run', '${name}', '--plugin', './index.ts'` : `'run', 'probe', '--plugin', './fixtures/probe-benchmark.mjs', '--plugin', './index.ts', '--method', '${name}'`;
  const vars = { name, displayName: titled(name), runArgs };
  const memrl = opts.memrl ?? thisMemrl();
  const start = kind === 'benchmark' ? `memrl run ${name} --plugin ./index.ts --epochs 3` : `memrl run probe --plugin ./fixtures/probe-benchmark.mjs --plugin ./index.ts --method ${name} --epochs 3`;

  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(
      {
        name: `memrl-${kind}-${name}`,
        version: '0.1.0',
        private: true,
        type: 'module',
        description: `A memrl ${kind} plug-in`,
        scripts: { start, test: 'node --test test/', typecheck: 'tsc --noEmit' },
        devDependencies: { memrl: memrl, typescript: '^5.9.0', '@types/node': '^20.19.0' },
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': `${JSON.stringify(
      { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, include: ['*.ts'] },
      null,
      2,
    )}\n`,
    'README.md': readme(kind, name, start),
  };
  const templates = asset(TEMPLATES, kind);
  for (const file of listFiles(templates)) files[file.replace(/\.tmpl$/, '')] = fill(readFileSync(join(templates, file), 'utf8'), vars);

  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    writeFileSync(join(target, file), text);
  }
  return Object.keys(files).sort();
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

function readme(kind: PluginKind, name: string, start: string): string {
  const what = kind === 'benchmark' ? `a benchmark, \`${name}\`` : `a memory method, \`${name}\``;
  return `# ${titled(name)}

A memrl plug-in: ${what}, in \`index.ts\`.

\`\`\`bash
npm install            # memrl (its CLI and types), TypeScript
npm test               # runs the plug-in through memrl offline (the simulator)
npm run typecheck
npx ${start}
\`\`\`

Edit \`index.ts\`. memrl checks the plug-in against its contract as it loads and runs: a
mistake stops the command with one line naming the function and the field. Every field:
memrl's \`docs/plugin-reference.md\`; step by step: \`docs/plugins.md\`.
`;
}

/** For messages: the folder as the user gave it, relative when it is below the current one. */
export function shownDir(dir: string, cwd = process.cwd()): string {
  const rel = relative(cwd, resolve(cwd, dir));
  return rel && !rel.startsWith('..') ? rel : resolve(cwd, dir);
}

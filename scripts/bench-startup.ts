/**
 * npm run bench:startup: how much CPU the CLI spends before it does any work. Every
 * command's and subcommand's `--help` (the list is read from the CLI itself: each
 * command registered as `memrl` would, its subcommands walked), beside `node -e 0`
 * (Node's own start) measured in turn with it, so a machine that slows down mid-way
 * slows both. Goal: every `--help` within GOAL_MS of CPU over node.
 *
 * CPU is user + system time of the whole process, read by the process itself as it
 * exits (process.cpuUsage() through an --import hook given to both commands alike),
 * so a busy machine inflates it far less than wall time. Median of RUNS runs each.
 *
 *   npm run bench:startup               10 runs per command
 *   node dist/scripts/bench-startup.js 5
 */
import { spawnSync } from 'node:child_process';
import { Command } from 'commander';
import { builtinRegistry } from '../src/app/registry.js';
import { COMMANDS } from '../src/cli/main.js';
import { asset } from '../src/util/paths.js';

const RUNS = Number(process.argv[2] ?? 10);
const GOAL_MS = 150;
const BIN = asset('bin', 'memrl.js');

/** Prints the process's CPU time (µs) on fd 3 as it exits; loaded before the program by --import. */
const CPU_HOOK = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); try { writeSync(3, String(u.user + u.system)); } catch {} });",
)}`;

/** Every command line whose --help to time: `run`, `run bcb`, `sweep status`, … in the CLI's order. */
async function helpCommands(): Promise<string[][]> {
  const out: string[][] = [[]];
  const walk = (cmd: Command, path: string[]): void => {
    out.push(path);
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  for (const entry of COMMANDS) {
    const program = new Command('memrl');
    await entry.register(program, builtinRegistry());
    for (const cmd of program.commands) walk(cmd, [cmd.name()]);
  }
  return out;
}

/** CPU ms of one run. */
function cpuMs(args: string[]): number {
  const r = spawnSync(process.execPath, ['--import', CPU_HOOK, ...args], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const us = Number(r.output[3]);
  if (!Number.isFinite(us) || us <= 0) throw new Error(`node ${args.join(' ')}: no CPU figure (${String(r.output[3])})`);
  return us / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median CPU of `memrl <line> --help` and of `node -e 0`, run in turn. */
function measure(line: string[]): { memrl: number; node: number } {
  const memrl: number[] = [];
  const node: number[] = [];
  cpuMs([BIN, ...line, '--help']); // warm the disk cache: the first run of a command reads its files
  for (let i = 0; i < RUNS; i++) {
    node.push(cpuMs(['-e', '0']));
    memrl.push(cpuMs([BIN, ...line, '--help']));
  }
  return { memrl: median(memrl), node: median(node) };
}

const lines = await helpCommands();
console.log(`CPU time (user + sys), median of ${RUNS} runs each; goal: every --help within ${GOAL_MS} ms of node -e 0`);
console.log(`${'command'.padEnd(34)} ${'memrl'.padStart(8)} ${'node'.padStart(8)} ${'over node'.padStart(10)}`);
let over = 0;
for (const line of lines) {
  const { memrl, node } = measure(line);
  const delta = memrl - node;
  if (delta > GOAL_MS) over++;
  const label = ['memrl', ...line, '--help'].join(' ');
  console.log(`${label.padEnd(34)} ${memrl.toFixed(0).padStart(5)} ms ${node.toFixed(0).padStart(5)} ms ${`+${delta.toFixed(0)}`.padStart(7)} ms${delta > GOAL_MS ? '  over the goal' : ''}`);
}
console.log(over ? `${over} of ${lines.length} over the goal` : `all ${lines.length} within the goal`);

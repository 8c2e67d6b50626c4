/**
 * `memrl doctor`: a table of the evaluator backends of every registered benchmark and
 * whether each works here. Exit code 0 when every checked part works, 1 otherwise (the
 * table says what to do).
 */
import type { Command } from 'commander';
import { builtinRegistry, defaultBenchmark, type Registry } from '../../app/registry.js';
import type { DoctorCheck } from '../../core/benchmark.js';
import { withExamples } from '../help.js';

interface DoctorFlags {
  config?: string;
  dockerHost?: string;
  backend?: 'local' | 'docker';
  json?: boolean;
}

export function formatDoctor(checks: DoctorCheck[]): string {
  const rows = checks.map((c) => [c.backend, c.part, c.ok ? 'ok' : 'NOT OK', c.detail]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['backend', 'part', 'status'][i]!.length));
  const line = (r: string[]) => r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ');
  return [line(['backend', 'part', 'status', 'detail']), ...rows.map(line)].join('\n') + '\n';
}

export function registerDoctorCommand(program: Command, registry: Registry = builtinRegistry()): void {
  const cmd = program
    .command('doctor')
    .description('check which evaluator backends (local sandbox, containers) work on this machine, and why not')
    .option('--config <yaml>', 'read memrl.evaluator.docker (engine address, image names) from this config')
    .option('--docker-host <url>', 'container engine to check (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)')
    .option('--backend <name>', 'check only local or docker')
    .option('--json', 'print the checks as JSON')
    .action(async (flags: DoctorFlags) => {
      // The config loader and the probes load when the command runs, not for --help.
      const { loadConfig } = await import('../../app/config.js');
      const { doctorChecks } = await import('../../app/doctor.js');
      // Only the evaluator settings are read, which no benchmark changes: the default one's config will do.
      const cfg = loadConfig(flags.config, flags.dockerHost ? { dockerHost: flags.dockerHost } : {}, defaultBenchmark(registry), { inspect: true, registry });
      const checks = await doctorChecks(registry, cfg.evaluator, flags.backend);
      process.stdout.write(flags.json ? JSON.stringify(checks, null, 2) + '\n' : formatDoctor(checks));
      process.exitCode = checks.every((c) => c.ok) ? 0 : 1;
    });
  withExamples(cmd, ['memrl doctor', 'memrl doctor --backend docker --docker-host unix:///run/podman/podman.sock', 'memrl doctor --json']);
}

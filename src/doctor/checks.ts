/**
 * `memrl doctor`: which evaluator backends work on this machine, and if not, why and
 * what to run. Each check is cheap and independent; none of them changes anything.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { DockerSettings } from '../config/types.js';
import { Box } from '../container/box.js';
import { describeError, openEngine, type Engine } from '../container/engine.js';
import { BUILD_HINT } from '../container/image.js';
import { checkBwrap } from '../sandbox/check.js';
import { DEFAULT_SANDBOX_PYTHON } from '../sandbox/python-libs.js';
import { checkShellSandbox } from '../sandbox/shell/sandbox.js';
import { checkMariadb } from '../sandbox/sql/mariadb.js';

export interface DoctorCheck {
  backend: 'local' | 'docker';
  /** What this part is for, e.g. 'bcb tests', 'llb db server'. */
  part: string;
  ok: boolean;
  detail: string;
}

type Outcome = { ok: true; detail: string } | { ok: false; detail: string };

async function settle(fn: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await fn();
  } catch (err) {
    return { ok: false, detail: describeError(err) };
  }
}

function pythonVersion(python: string): Outcome {
  if (!existsSync(python)) return { ok: false, detail: `${python} not found; install with: bash scripts/setup.sh system-bcb` };
  const r = spawnSync(python, ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 ? { ok: true, detail: `python ${r.stdout.trim()}` } : { ok: false, detail: `${python} does not run: ${r.stderr.trim().split('\n').at(-1)}` };
}

export async function localChecks(): Promise<DoctorCheck[]> {
  const bcb = await settle(async () => {
    const bw = await checkBwrap();
    if (!bw.ok) return { ok: false, detail: bw.reason };
    const py = pythonVersion(DEFAULT_SANDBOX_PYTHON);
    return py.ok ? { ok: true, detail: `bubblewrap ${bw.path}, ${py.detail}` } : py;
  });
  const db = await settle(async () => {
    const m = await checkMariadb();
    return m.ok ? { ok: true, detail: `server ${m.version}` } : { ok: false, detail: m.reason };
  });
  const os = await settle(async () => {
    const s = await checkShellSandbox();
    return s.ok ? { ok: true, detail: 'rootfs and user namespaces usable' } : { ok: false, detail: s.reason };
  });
  const alf = await settle(async () => {
    const py = pythonVersion('/usr/bin/python3');
    if (!py.ok) return py;
    const r = spawnSync('/usr/bin/python3', ['-c', 'import alfworld'], { encoding: 'utf8', timeout: 30_000 });
    return {
      ok: true,
      detail: `${py.detail}; household-standin ready; real ALFWorld ${r.status === 0 ? 'importable' : 'not installed (pip install alfworld && alfworld-download)'}`,
    };
  });
  return [
    { backend: 'local', part: 'bcb tests', ...bcb },
    { backend: 'local', part: 'llb db server', ...db },
    { backend: 'local', part: 'llb os sandbox', ...os },
    { backend: 'local', part: 'alfworld bridge', ...alf },
  ];
}

/** Starts and removes one tiny container: proves the runtime works, not just the API. */
async function probeContainer(engine: Engine, image: string, settings: DockerSettings): Promise<Outcome> {
  const box = await Box.start(engine, { image, role: 'probe', cmd: ['sleep', '30'], memoryBytes: settings.memoryMb * 1024 * 1024, pids: settings.pids });
  try {
    const r = await box.exec(['sh', '-c', 'echo ok'], { timeoutMs: 20_000 });
    return r.stdout.trim() === 'ok' ? { ok: true, detail: 'a container started and ran a command' } : { ok: false, detail: `probe command failed: ${r.stderr.trim()}` };
  } finally {
    await box.remove();
  }
}

export async function dockerChecks(settings: DockerSettings): Promise<DoctorCheck[]> {
  let engine: Engine;
  try {
    const opened = await openEngine(settings.host);
    engine = opened.engine;
    const checks: DoctorCheck[] = [
      { backend: 'docker', part: 'engine', ok: true, detail: `${opened.info.name} ${opened.info.version} (API ${opened.info.apiVersion}) at ${opened.info.address}` },
    ];
    // [part, image, what to use instead on a machine without a registry]
    const images: [string, string, string][] = [
      ['bcb image', settings.images.bcb, ''],
      ['llb db image', settings.images.llbDb, '; without a registry set memrl.evaluator.docker.images.llb_db: memrl/llb-db-mariadb:latest (built by that script)'],
      ['llb os image', settings.images.llbOs, ''],
      ['alfworld image', settings.images.alfworld, '; the household stand-in needs only memrl/alfworld-standin:latest (built by that script)'],
    ];
    // What stand-in runs use while images.alfworld is left at the real ALFWorld image.
    if (settings.images.alfworld === 'memrl/alfworld:latest') images.push(['alfworld stand-in image', 'memrl/alfworld-standin:latest', '']);
    let present: string | undefined;
    for (const [part, image, instead] of images) {
      const r = await settle(async () => {
        try {
          const info = await engine.docker.getImage(image).inspect();
          present ??= image;
          return { ok: true, detail: `${image} present (${info.Id.replace(/^sha256:/, '').slice(0, 12)})` };
        } catch (err) {
          if ((err as { statusCode?: number }).statusCode === 404) {
            const pull = settings.pull === 'missing' ? 'will be pulled at first use if a registry is reachable; ' : '';
            return { ok: false, detail: `${image} not on the engine; ${pull}${BUILD_HINT}${instead}` };
          }
          throw err;
        }
      });
      checks.push({ backend: 'docker', part, ...r });
    }
    if (present) {
      const probe = await settle(() => probeContainer(engine, present!, settings));
      checks.push({ backend: 'docker', part: 'container start', ...probe });
    }
    return checks;
  } catch (err) {
    return [{ backend: 'docker', part: 'engine', ok: false, detail: (err as Error).message }];
  }
}

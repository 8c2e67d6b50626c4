/**
 * The container engine behind `--evaluator docker`: Docker, or Podman's
 * Docker-compatible API, reached through dockerode. Where to connect: the configured
 * address, else DOCKER_HOST, else the first of the usual sockets that exists.
 */
import { existsSync } from 'node:fs';
import Docker from 'dockerode';
import { UserError } from '../../util/errors.js';
import { ENGINE_CONNECT_TIMEOUT_MS } from '../limits.js';
import { describeError } from './errors.js';

export { describeError };

/** Sockets tried in order when neither the config nor DOCKER_HOST names one. */
export const DEFAULT_SOCKETS = ['/var/run/docker.sock', '/run/podman/podman.sock', `/run/user/${process.getuid?.() ?? 0}/podman/podman.sock`];

export const ENGINE_HINT =
  'start Docker, or Podman\'s API with: bash scripts/setup.sh podman; or point --docker-host / DOCKER_HOST at a running engine';

export class EngineUnavailableError extends UserError {
  constructor(address: string, reason: string) {
    super(`no container engine at ${address} (${reason}); ${ENGINE_HINT}`);
    this.name = 'EngineUnavailableError';
  }
}

export interface EngineAddress {
  /** As the user would write it: unix:///path or tcp://host:port. */
  label: string;
  options: Docker.DockerOptions;
}

export function resolveEngineAddress(configured: string | null, env: NodeJS.ProcessEnv = process.env): EngineAddress {
  const raw = configured ?? env.DOCKER_HOST ?? null;
  if (raw) return parseAddress(raw);
  const found = DEFAULT_SOCKETS.find((p) => existsSync(p)) ?? DEFAULT_SOCKETS[0]!;
  return { label: `unix://${found}`, options: { socketPath: found } };
}

function parseAddress(raw: string): EngineAddress {
  if (raw.startsWith('unix://')) return { label: raw, options: { socketPath: raw.slice('unix://'.length) } };
  if (raw.startsWith('/')) return { label: `unix://${raw}`, options: { socketPath: raw } };
  const m = /^(tcp|http|https):\/\/([^:/]+)(?::(\d+))?\/?$/.exec(raw);
  if (!m) throw new UserError(`container engine address '${raw}' is not unix:///path.sock or tcp://host:port; fix --docker-host / memrl.evaluator.docker.host / DOCKER_HOST`);
  const protocol = m[1] === 'https' ? 'https' : 'http';
  return { label: raw, options: { host: m[2], port: Number(m[3] ?? (protocol === 'https' ? 2376 : 2375)), protocol } };
}

export interface Engine {
  docker: Docker;
  address: string;
}

export interface EngineInfo {
  address: string;
  /** e.g. 'Podman Engine 4.3.1' or 'Docker Engine - Community 27.1.1'. */
  name: string;
  version: string;
  apiVersion: string;
}

const engines = new Map<string, Promise<{ engine: Engine; info: EngineInfo }>>();

/**
 * Connects and asks the engine for its version (so a dead daemon fails here, once,
 * with one line). Cached per address.
 */
export function openEngine(configured: string | null): Promise<{ engine: Engine; info: EngineInfo }> {
  const addr = resolveEngineAddress(configured);
  let p = engines.get(addr.label);
  if (!p) {
    p = connect(addr);
    engines.set(addr.label, p);
    p.catch(() => engines.delete(addr.label));
  }
  return p;
}

async function connect(addr: EngineAddress): Promise<{ engine: Engine; info: EngineInfo }> {
  // No socket timeout on the client: exec streams of long tests are quiet for minutes;
  // every wait has its own limit where it is made.
  const docker = new Docker(addr.options);
  let v: Docker.DockerVersion | undefined;
  // A busy or restarting engine can drop a connection: three tries before giving up.
  for (let attempt = 1; v === undefined; attempt++) {
    try {
      v = await withTimeout(docker.version(), ENGINE_CONNECT_TIMEOUT_MS, `no answer within ${ENGINE_CONNECT_TIMEOUT_MS / 1000} s`);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= 3 || code === 'ENOENT' || code === 'EACCES') throw new EngineUnavailableError(addr.label, describeError(err));
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
  const component = (v as { Components?: { Name: string; Version: string }[] }).Components?.[0];
  return {
    engine: { docker, address: addr.label },
    info: { address: addr.label, name: component?.Name ?? 'Docker Engine', version: v.Version, apiVersion: v.ApiVersion },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

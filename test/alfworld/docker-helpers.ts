/** Shared by the `--evaluator docker` ALFWorld tests. */
import { containerBridgeSettings, type ContainerBridgeOptions } from '../../src/bench/alfworld/bridge-client.js';
import type { DockerSettings } from '../../src/config/types.js';
import { DockerBridgeTransport } from '../../src/env/bridge/docker.js';

/** The stand-in image: python3 only (docker/alfworld-standin.Dockerfile). */
export const STANDIN_IMAGE = 'memrl/alfworld-standin:latest';

export function dockerSettings(over: Partial<DockerSettings> = {}): DockerSettings {
  return { host: null, images: { bcb: 'memrl/bcb:latest', llb_db: 'mysql:8', llb_os: 'memrl/llb-os:latest', alfworld: STANDIN_IMAGE }, memoryMb: 512, pids: 128, pull: 'never', ...over };
}

/** ALFWorld's bridge in containers: the env's docker bridge transport, held directly (tests read `started`). */
export type ContainerTransport = DockerBridgeTransport;

export function containerTransport(opts: ContainerBridgeOptions): ContainerTransport {
  return new DockerBridgeTransport(containerBridgeSettings(opts));
}

/**
 * A bridge as a child process of ours: the command with its stdio on pipes, our
 * environment plus the settings' (the bridge is trusted code of the caller's, not
 * sandboxed). Every child is killed when this process exits.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { childPeer } from '../child-peer.js';
import type { EnvCheck, EvaluatorFacts } from '../contract.js';
import type { BridgeProcess, BridgeSettings, BridgeTransport } from './contract.js';
import { BridgeFault } from './faults.js';

const live = new Set<ChildProcessWithoutNullStreams>();
let exitHook = false;

export class LocalBridgeTransport implements BridgeTransport {
  readonly backend = 'local' as const;

  constructor(private readonly settings: BridgeSettings) {
    if (settings.command.length === 0) throw new BridgeFault(`${settings.label}: no command to start`);
  }

  async launch(): Promise<BridgeProcess> {
    const [program, ...args] = this.settings.command as [string, ...string[]];
    const child = spawn(program, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...(this.settings.env ?? {}) },
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => reject(new BridgeFault(`cannot start ${this.settings.label} with ${program}: ${err.message}`)));
    });
    live.add(child);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const c of live) c.kill('SIGKILL');
      });
    }
    child.once('exit', () => live.delete(child));
    return childPeer(child, () => child.kill('SIGKILL'));
  }

  /** Starts the bridge once and stops it: the command exists and runs. */
  async check(): Promise<EnvCheck> {
    try {
      const proc = await this.launch();
      await proc.stop();
      return { ok: true, detail: this.settings.command[0]! };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  }

  async describe(): Promise<EvaluatorFacts> {
    return { backend: 'local', command: this.settings.command[0] };
  }

  async close(): Promise<void> {
    // Each client stops its own process.
  }
}

/**
 * A container whose main process is a long-lived peer with its stdio attached
 * (bridges, fork servers).
 */
import type { PeerProcess } from '../contract.js';
import { BRIDGE_STATE_WAIT_MS } from '../limits.js';
import type { Box } from './box.js';

/** The attached stdio of a container's main process. */
export type Attached = Awaited<ReturnType<Box['attach']>>;

/**
 * A container's main process, its stdio attached, as a process the caller talks to
 * (a bridge, a fork server): `exited` says why it ended (with `endedHint` after the
 * engine's word when it ended by itself), stop() releases the box.
 */
export function containerProcess(box: Box, io: Attached, release: (box: Box) => Promise<void>, opts: { endedHint?: string } = {}): PeerProcess {
  // An idle process must not keep node alive (as a local child); pending requests hold a timer.
  (io.stdin as unknown as { unref?: () => void }).unref?.();
  let ended = false;
  let settle: (why: string) => void = () => undefined;
  const exited = new Promise<string>((resolve) => (settle = resolve));
  const onEnd = (): void => {
    if (ended) return;
    ended = true;
    // Why it ended, from the engine (briefly: a dead engine must not delay failing the episode).
    const wait = new Promise<{ running: boolean; detail: string }>((r) => setTimeout(() => r({ running: true, detail: 'the engine did not say why' }), BRIDGE_STATE_WAIT_MS).unref());
    void Promise.race([box.state(), wait]).then((s) => {
      settle(`container ${box.shortId} ${s.running ? `stopped talking (${s.detail})` : s.detail}${opts.endedHint ? `; ${opts.endedHint}` : ''}`);
      void release(box);
    });
  };
  io.stdout.once('end', onEnd);
  io.stdin.once('close', onEnd);
  io.stdin.once('error', onEnd);
  return {
    where: { container: box.id },
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    exited,
    get running() {
      return !ended && !io.stdin.destroyed && io.stdin.writable;
    },
    async stop() {
      if (!ended) {
        ended = true;
        settle(`container ${box.shortId} was stopped`);
      }
      io.stdin.destroy();
      await release(box);
    },
  };
}

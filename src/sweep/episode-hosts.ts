/**
 * A worker's open runs: one episode host per run folder, opened when the run says it is
 * open or on its first episode, whichever comes first, and shared by its episodes. A
 * host is replaced when the run's run.json changes (a resume, maybe with new settings),
 * and closed once idle for a while (its benchmark may hold bridges or connections); a
 * replaced host is closed only after the episodes it is playing have finished, so no
 * episode loses its evaluator mid-way.
 */
import { openEpisodeHost, runManifestTime, type EpisodeHost, type HostOptions } from '../app/episode-host.js';
import type { EpisodeRequest, EpisodeResult } from '../runner/remote-episodes.js';

interface Entry {
  host: Promise<EpisodeHost>;
  /** Episodes playing on it now. */
  active: number;
  /** Replaced by a newer host, or idle too long: close when the last episode ends. */
  retired: boolean;
  idle?: NodeJS.Timeout;
}

export class EpisodeHosts {
  private readonly open = new Map<string, Entry>();

  constructor(
    private readonly opts: HostOptions & { onOpen?(runDir: string): void },
    /** Close a host this long after its last episode. */
    private readonly idleMs = 60_000,
    /** How a host is opened (tests give their own). */
    private readonly openHost: typeof openEpisodeHost = openEpisodeHost,
  ) {}

  async play(req: EpisodeRequest): Promise<EpisodeResult> {
    const entry = await this.entryFor(req.runDir);
    entry.active++;
    clearTimeout(entry.idle);
    try {
      return await (await entry.host).play(req);
    } finally {
      entry.active--;
      if (entry.active === 0) {
        if (entry.retired) void this.close(entry);
        else this.closeWhenIdle(req.runDir, entry);
      }
    }
  }

  /**
   * Open the run now, before any of its episodes arrives (the run said it is open). A run
   * that fails to open is left to its first episode, which reports why; one that sends no
   * episode is closed like any idle host.
   */
  async warm(runDir: string): Promise<void> {
    const entry = await this.entryFor(runDir);
    if (entry.active === 0 && !entry.retired) this.closeWhenIdle(runDir, entry);
    await entry.host.catch(() => undefined);
  }

  /** Retire the host once it has stayed idle for idleMs (an episode starting clears this). */
  private closeWhenIdle(runDir: string, entry: Entry): void {
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => this.retire(runDir, entry), this.idleMs);
    entry.idle.unref();
  }

  private async entryFor(runDir: string): Promise<Entry> {
    const current = this.open.get(runDir);
    if (current) {
      const host = await current.host.catch(() => undefined);
      if (host && host.openedAt === runManifestTime(runDir)) return current;
      this.retire(runDir, current);
    }
    const entry: Entry = { host: this.openHost(runDir, this.opts), active: 0, retired: false };
    this.open.set(runDir, entry);
    entry.host.then(
      () => this.opts.onOpen?.(runDir),
      () => this.open.get(runDir) === entry && this.open.delete(runDir), // the next episode tries again, and fails in its own words
    );
    return entry;
  }

  private retire(runDir: string, entry: Entry): void {
    if (this.open.get(runDir) === entry) this.open.delete(runDir);
    entry.retired = true;
    if (entry.active === 0) void this.close(entry);
  }

  private async close(entry: Entry): Promise<void> {
    clearTimeout(entry.idle);
    await entry.host.then((h) => h.close()).catch(() => undefined);
  }

  /** Close every host (the worker is stopping: no episode is playing any more). */
  async closeAll(): Promise<void> {
    const entries = [...this.open.values()];
    this.open.clear();
    for (const e of entries) await this.close(e);
  }
}

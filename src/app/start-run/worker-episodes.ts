/**
 * `--queue`: episodes played by workers. Replies a worker got live go into this run's
 * own recording, as if this process had made the calls; a plug-in's faults on a worker
 * count as they would here.
 */
import type { CacheLayers } from '../../llm/cache.js';
import type { EpisodeDispatcher } from '../../runner/remote-episodes.js';
import type { PluginFaults } from './plugin-faults.js';

export function workerEpisodes(queued: EpisodeDispatcher, cacheLayers: CacheLayers, faults: PluginFaults): EpisodeDispatcher {
  return {
    label: queued.label,
    play: async (req, signal) => {
      const res = await queued.play(req, signal);
      for (const e of res.replies) cacheLayers.record[0]?.put(e);
      faults.fromWorker(res);
      return res;
    },
    runOpened: (dir) => queued.runOpened?.(dir),
    close: () => queued.close(),
  };
}

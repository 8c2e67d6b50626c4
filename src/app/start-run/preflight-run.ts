/**
 * Before anything is written: the folders the run writes to are writable, and a live
 * run's endpoints answer (a replay calls none). Opens the run's reply cache layers.
 */
import { runCacheLayers, type CacheLayers } from '../../llm/cache.js';
import { checkEndpoints, checkWritableFolder } from '../preflight.js';
import { checkProfileModels } from '../profile-check.js';
import type { ResolvedRun } from './types.js';

export async function preflightRun({ cfg, runDir, replayFrom }: ResolvedRun): Promise<CacheLayers> {
  checkWritableFolder(runDir, cfg.run.resume ? '--resume' : 'the results folder (--output-dir)');
  if (cfg.run.logDir) checkWritableFolder(cfg.run.logDir, '--log-dir');
  if (cfg.run.cacheDir) checkWritableFolder(cfg.run.cacheDir, '--cache');
  const cacheLayers = runCacheLayers({ runDir, sharedDir: cfg.run.cacheDir, replayFrom });
  if (!cacheLayers.offline) {
    await checkEndpoints([
      ...(cfg.llm.provider === 'openai' ? [{ key: 'llm.base_url', url: cfg.llm.baseUrl }] : []),
      ...(cfg.judge?.provider === 'openai' ? [{ key: 'the judge base_url', url: cfg.judge.baseUrl }] : []),
      ...(cfg.embedding.provider === 'openai' ? [{ key: 'embedding.base_url', url: cfg.embedding.baseUrl }] : []),
    ]);
    // A profile says which of its models the endpoints do not serve (run.json and the banner).
    await checkProfileModels(cfg);
  }
  return cacheLayers;
}

/**
 * LifelongAgentBench's data files, as the MemRL repository ships them (data/llb/) at the
 * commit memrl follows: the train / validation splits the reference runs on, the 500-task
 * runtime-learning sets `memrl check-gold llb` replays, and the reference's *_data.json
 * files (Python-repr fields, refused by the loader with the usable names; kept so the
 * release is complete).
 */
import { cachePath, locate } from '../../data/locations.js';
import { fileOf, type DataFile, type DatasetDeclaration } from '../../data/manifest.js';

const MEMRL = 'https://raw.githubusercontent.com/MemTensor/MemRL/7c3beba1244d707b74207b494be254f391819e09/data/llb';

/** file name → [sha256, size] */
const FILES: Record<string, [string, number]> = {
  'db_train.json': ['649446019101a10d8af65b7fcdeb06f56dd4d334b3a8d99839f9d1296b4891f9', 1829948],
  'db_val.json': ['0aa01f7405403106780ed1cc0ed270417254bb9889aa5126d0f2d4ce3bcfe0a9', 684412],
  'db_bench_runtime_learning_data.json': ['c80b5ce4400d578baa71421871747c504a8f584e6d5766b66ed3b6fde3eee5fe', 2558511],
  'db_bench_data.json': ['5553dd87f528eaa814557d2e245eb2cfd69cfb7994233fb273049445d14b088a', 1262829],
  'os_interaction_train.json': ['d33513493856e6cdce2377a951a48a42686463eee1c92acb9d6b0a0320601e62', 508432],
  'os_interaction_val.json': ['1804781d7e768e74cc9f9038fcdfcf373ff34d4edc668382d6d18cbf74f856d6', 213477],
  'os_interaction_runtime_learning_data.json': ['766e91b51ec8330c1c34b6218637572e10ab9bda9ff6090ab29dab55bf997959', 734316],
  'os_interaction_data.json': ['06790c2137ef7765df198bb7e14617ce79f6c5fa1c092f6df39f6f6b7abd21c7', 676791],
};

export const LLB_DATA: DatasetDeclaration = {
  title: 'LifelongAgentBench',
  release: 'MemRL@7c3beba',
  licence: "MIT (the MemRL repository's licence; the tasks come from LifelongAgentBench)",
  homepage: 'https://github.com/MemTensor/MemRL/tree/7c3beba1244d707b74207b494be254f391819e09/data/llb',
  files: Object.entries(FILES).map(([name, [sha256, size]]) => ({ path: `llb/${name}`, url: `${MEMRL}/${name}`, sha256, size })),
};

function llbFile(name: string): DataFile {
  return fileOf({ name: 'llb', ...LLB_DATA }, `llb/${name}`);
}

/** The copy of an LLB file a run reads (cache, then the mirror), or where `memrl data pull llb` puts it. */
export function llbFilePath(name: string): string {
  const file = llbFile(name);
  return locate(file)?.path ?? cachePath(file);
}

/** Whether `name` is one of the release's file names (a reference config names them as ./data/llb/<name>). */
export function isLlbFileName(name: string): boolean {
  return name in FILES;
}


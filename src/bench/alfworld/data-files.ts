/**
 * ALFWorld's data file here: the few-shot examples the reference prompts with (ReAct's,
 * as the MemRL repository ships them). The games themselves come with the `alfworld`
 * package (`alfworld-download`). Without a copy, the offline stand-in reads examples we
 * played in the stand-in itself (scripts/python/make_standin_examples.py).
 */
import { cachePath, locate, samplePath } from '../../data/locations.js';
import { fileOf, type DataFile, type DatasetDeclaration } from '../../data/manifest.js';

const EXAMPLES = 'alfworld/alfworld_examples.json';

export const ALFWORLD_DATA: DatasetDeclaration = {
  title: 'ALFWorld few-shot examples',
  release: 'MemRL@7c3beba',
  licence: "MIT (the MemRL repository's; the examples are ReAct's, MIT)",
  homepage: 'https://github.com/MemTensor/MemRL/tree/7c3beba1244d707b74207b494be254f391819e09/configs/alfworld',
  files: [
    {
      path: EXAMPLES,
      url: 'https://raw.githubusercontent.com/MemTensor/MemRL/7c3beba1244d707b74207b494be254f391819e09/configs/alfworld/alfworld_examples.json',
      sha256: '73865f1759d58572e76982f3601fa954d734dc2540f7b2ba86d06d625a488b9a',
      size: 17352,
      sample: {
        path: 'data/samples/alfworld/standin-examples.json',
        what: 'one example per task type played in the household stand-in, for the stand-in only',
        release: "memrl's stand-in examples",
      },
    },
  ],
};

function examplesFile(): DataFile {
  return fileOf({ name: 'alfworld', ...ALFWORLD_DATA }, EXAMPLES);
}

/** The examples a run reads when experiment.few_shot_path is not there: the release's copy, else (stand-in only) ours. */
export function defaultFewShotPath(standin: boolean): string {
  const file = examplesFile();
  return locate(file)?.path ?? (standin ? samplePath(file) : null) ?? cachePath(file);
}

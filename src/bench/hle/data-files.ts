/**
 * Humanity's Last Exam's data file: the test split on the hub (cais/hle, gated) at a
 * fixed revision. Gated means no copy was at hand to pin its checksum: `memrl data pull
 * hle` records the one it downloads beside it, and runs record it. Without a copy, the
 * offline quickstart reads the small fixture we wrote in HLE's schema (its questions are
 * ours, not HLE's), and only with the simulator.
 */
import { cachePath, locate, samplePath } from '../../data/locations.js';
import { fileOf, type DataFile, type DatasetDeclaration } from '../../data/manifest.js';

export const HLE_FILE = 'hle/test-00000-of-00001.parquet';

export const HLE_DATA: DatasetDeclaration = {
  title: "Humanity's Last Exam",
  release: 'cais/hle@5a81a4c',
  licence: 'MIT',
  homepage: 'https://huggingface.co/datasets/cais/hle',
  gated: 'https://huggingface.co/datasets/cais/hle',
  files: [
    {
      path: HLE_FILE,
      url: 'https://huggingface.co/datasets/cais/hle/resolve/5a81a4c7271a2a2a312b9a690f0c2fde837e4c29/data/test-00000-of-00001.parquet',
      sha256: null,
      size: null,
      sample: {
        path: 'test/fixtures/hle/hle_snappy.parquet',
        what: "questions memrl's authors wrote in HLE's schema, not HLE's; only for the offline simulator",
        release: "memrl's fixture, not HLE",
      },
    },
  ],
};

function hleFile(): DataFile {
  return fileOf({ name: 'hle', ...HLE_DATA }, HLE_FILE);
}

/** The questions a run reads without --train: the pulled copy, else (simulator only) the fixture; null: none. */
export function defaultHleTrainPath(simulated: boolean): string | null {
  const file = hleFile();
  return locate(file)?.path ?? (simulated ? samplePath(file) : null);
}

/** Where `memrl data pull hle` puts the file. */
export function hleCachePath(): string {
  return cachePath(hleFile());
}

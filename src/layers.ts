/**
 * The layers of src/, top to bottom. A file may import from its own folder and from
 * folders of lower layers only: never up, never sideways into another folder of the
 * same layer. test/architecture/layers.test.ts enforces it on every run, and fails on
 * an import cycle between folders.
 *
 * Files directly in src/ (index.ts: the public API for plug-ins) sit above everything.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['cli'], // commander actions: parse, print, signals, exit codes
  ['sweep'], // grids of runs: in this process, or as jobs for workers on a BullMQ queue
  ['app', 'report', 'compare', 'view'], // compose runs from the registries; present run folders
  ['runner'], // the scheduler and its reporters
  ['analysis'], // learning dynamics computed from run folders (memrl analyze, the report's analysis section)
  ['bench', 'methods'], // plug-ins: one folder per benchmark, one file per memory method
  ['results'], // reading run folders
  ['core'], // the contracts: benchmark, method, reporter, outcome, faults, run files
  ['doctor'], // machine probes for `memrl doctor`
  ['config'], // the config schema, flags and resolution, generic over the registry
  ['env'], // where untrusted things run, by kind (python-tests, sql, shell, bridge), each local + docker; limits; the container engine
  ['memory', 'embed', 'metrics'], // the pure engine and its writer; embedders; the outcome matrix
  ['llm'], // model clients
  ['data'], // datasets: the manifest's sources and checksums, the cache, pulls, which release a run read
  ['util'],
];

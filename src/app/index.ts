/** Running memrl from a program ('memrl/app'): the registry, plug-in loading, config and runs. */
export { startRun, type RunOptions, type RunIo, type RunHandle, type RunEnd } from './start-run.js';
export { builtinRegistry, withPlugins, findBenchmark, findMethod, type Registry } from './registry.js';
export { loadPlugins } from './plugins.js';
export { loadConfig, configSchema, explainText } from './config.js';

/** Every run folder at or below some paths, read; any unreadable one stops with its path. */
import { findRunFolders, readRunFolder, type RunFolder } from '../results/run-folder.js';
import { UserError, errorMessage } from '../util/errors.js';
import { rememberNames } from './names.js';

export function loadRuns(paths: readonly string[]): RunFolder[] {
  if (paths.length === 0) throw new UserError('give at least one run folder or results folder');
  return findRunFolders([...paths]).map((dir) => {
    try {
      const run = readRunFolder(dir);
      rememberNames(run.manifest);
      return run;
    } catch (err) {
      if (err instanceof UserError) throw err;
      // A malformed outcomes line already names file:line; say what to do about it.
      throw new UserError(`${errorMessage(err)} (in run folder ${dir}; fix or move that folder)`);
    }
  });
}

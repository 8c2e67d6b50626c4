/**
 * The built-in memory methods, in the order help and tables list them. Adding a
 * method: one file here exporting its MethodModule, and one line in this list.
 * Plug-ins (--plugin) join the same list at run time.
 */
import type { MethodModule } from '../core/method.js';
import { mem0 } from './mem0.js';
import { memp } from './memp.js';
import { memrl } from './memrl.js';
import { none } from './none.js';
import { passk } from './passk.js';
import { rag } from './rag.js';
import { reflection } from './reflection.js';
import { selfrag } from './selfrag.js';

export const BUILTIN_METHODS: readonly MethodModule[] = [none, rag, memp, memrl, reflection, passk, selfrag, mem0];

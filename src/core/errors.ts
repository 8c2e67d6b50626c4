/**
 * The fault taxonomy plug-ins and the runner agree on (defined in util/errors.ts so
 * that every layer can throw them). See there for what each kind means.
 */
export { MemrlError, UserError, HarnessError, InterruptedError, errorMessage, faultCode, type FaultKind } from '../util/errors.js';

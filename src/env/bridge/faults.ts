import { HarnessError } from '../../util/errors.js';

/** The bridge crashed, was killed or hung, or could not be started; it is restarted on the next request. */
export class BridgeFault extends HarnessError {
  constructor(message: string) {
    super(message, 'bridge_fault');
    this.name = 'BridgeFault';
  }
}

/** The bridge answered a request with an error; `code` is the bridge's own (e.g. bad_request). */
export class BridgeRequestError extends HarnessError {
  constructor(message: string, code: string) {
    super(message, code);
    this.name = 'BridgeRequestError';
  }
}

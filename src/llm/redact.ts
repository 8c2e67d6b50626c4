/**
 * Keeping API keys out of messages. Providers echo parts of a bad key back
 * ("Incorrect API key provided: sk-abc***wxyz"): the scrubbing itself lives in
 * util/redact.ts, the one place that decides what a secret looks like.
 */
export { REDACTED, redactSecrets, redactUrlCredentials } from '../util/redact.js';

import { HarnessError } from '../../util/errors.js';

/** The SQL server or its client failed (not the statement): a harness fault. */
export class SqlTransportError extends HarnessError {
  constructor(message: string) {
    super(message, 'sql_transport');
    this.name = 'SqlTransportError';
  }
}

/** A task database could not be set up (its setup SQL failed on a server that answers). */
export class TaskDatabaseError extends HarnessError {
  constructor(message: string) {
    super(message, 'sql_task_setup');
    this.name = 'TaskDatabaseError';
  }
}

/** The LLB db task user's confinement on the local MariaDB (the container backend runs the same cases in docker-db.test.ts). */
import { localSqlServer } from '../../src/sandbox/sql/mariadb.js';
import { defineDbEscapes } from './db-escape-cases.js';
import { requireMariadb } from './require-mariadb.js';

const req = await requireMariadb();
defineDbEscapes('local MariaDB', req.skip, () => localSqlServer());

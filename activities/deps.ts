import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import type { Db } from '../platform/store/db';

/** What activities need from the outside world; tests pass real instances pointed at test resources. */
export interface ActivityDeps {
  db: Db;
  log: Logger;
  config: Config;
}

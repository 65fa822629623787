// Every test process: the Temporal SDK logs warnings and errors only.
import { DefaultLogger, Runtime } from '@temporalio/worker';

Runtime.install({ logger: new DefaultLogger('WARN') });

export { runJob } from './run-job';

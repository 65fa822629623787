// transform/v1: workflow definitions and the jobs that run them.
import { jobRoutes } from './jobs';
import { workflowRoutes } from './workflows';

export const transformRoutes = [...workflowRoutes, ...jobRoutes];

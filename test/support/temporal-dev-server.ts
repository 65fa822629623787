// vitest global setup: the real Temporal dev server (the pinned CLI), with our search attributes registered.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TestProject } from 'vitest/node';
import { findTemporalCli } from '../../bin/stack/cli';
import { ALL_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';
import { dynamicConfigFlags } from '../../bin/stack/temporal-dynamic-config';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalCli: string;
  }
}

let env: TestWorkflowEnvironment | undefined;

export async function setup(project: TestProject) {
  const cli = findTemporalCli();
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli },
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      ip: '127.0.0.1',
      // Each harness is a Worker Deployment of its own (test/support/harness.ts): more than the default 100.
      extraArgs: ['--dynamic-config-value', 'matching.maxDeployments=1000', ...dynamicConfigFlags()],
    },
  });
  project.provide('temporalAddress', env.address);
  project.provide('temporalCli', cli);
}

export async function teardown() {
  await env?.teardown();
}

// transform/v1 workflow definitions: the workspace's own and the built-in registration and unregistration.
import type { Db } from '../../platform/store/db';
import type { WorkflowView } from '../../platform/store/workflows';
import { findWorkflow, listAllWorkflows, saveWorkflow } from '../../domain/jobs/workflow-catalog';
import { notFound } from '../../web/http/problem';
import { route } from '../../web/http/route';
import * as R from '../schemas';
import { auth } from '../auth';
import { STORED } from '../reference';
import { idParam, listWorkflowsQuery, workflowBody } from './inputs';

/** A definition as the public API shows it: each step names its provider as `action` too (its name there). */
const onWire = (wf: WorkflowView) => {
  const withAction = (s: WorkflowView['steps'][number]) => ({ ...s, action: s.provider });
  return { ...wf, steps: wf.steps.map(withAction), rescue: wf.rescue.map(withAction) };
};

type Deps = { db: Db };

export const workflowRoutes = [
  route({
    method: 'put',
    path: '/transform/v1/workflows/:id',
    operationId: 'putWorkflow',
    summary: 'Create a workflow definition',
    description:
      'Stores a workflow definition of the workspace: its steps (each a `provider`, also named `action`) and its rescue steps, run when a step fails. The built-in registration and unregistration are listed by GET. ' +
      `The definition as stored (its steps and rescue, \`notes\` left out) holds at most ${STORED.values} JSON values and keys and ${STORED.bytes} bytes as compact JSON: a larger one is refused, 400 naming the limit.`,
    scope: 'jobs:rw',
    params: idParam,
    body: workflowBody,
    responses: { 200: R.workflow, 201: R.workflow },
    examples: {
      'set a state': {
        name: 'Mark completed',
        schema: 'org/party',
        steps: [
          {
            id: 'b1f0c7de-8a3e-4c1e-9d5a-2f6b7c8d9e01',
            name: 'Set state',
            provider: 'silo.state',
            config: { state: 'completed' },
          },
        ],
        rescue: [
          {
            id: 'b1f0c7de-8a3e-4c1e-9d5a-2f6b7c8d9e02',
            name: 'Set state',
            provider: 'silo.state',
            config: { state: 'error' },
          },
        ],
      },
    },
    errors: ['builtin-workflow', 'id-taken', 'id-not-available'],
    handle: async ({ params, body, res }, { db }: Deps) =>
      onWire(await saveWorkflow(db, auth(res).workspaceId, params.id, body)),
  }),
  route({
    method: 'get',
    path: '/transform/v1/workflows',
    operationId: 'listWorkflows',
    summary: 'List workflow definitions (built-ins included)',
    description:
      "The workspace's workflow definitions, and the built-in ones: the French party registration and unregistration.",
    scope: 'jobs:rw',
    query: listWorkflowsQuery,
    responses: { 200: R.workflowList },
    handle: async ({ query, res }, { db }: Deps) => ({
      limit: query.limit,
      ...(query.schema && { schema: query.schema }),
      list: (await listAllWorkflows(db, auth(res).workspaceId, query)).map(onWire),
    }),
  }),
  route({
    method: 'get',
    path: '/transform/v1/workflows/:id',
    operationId: 'getWorkflow',
    summary: 'Fetch a workflow definition',
    description: 'A workflow definition, with its steps.',
    scope: 'jobs:rw',
    params: idParam,
    responses: { 200: R.workflow },
    handle: async ({ params, res }, { db }: Deps) => {
      const wf = await findWorkflow(db, auth(res).workspaceId, params.id);
      if (!wf) throw notFound(`workflow ${params.id}`);
      return onWire(wf);
    },
  }),
];

// Finding a definition: the built-ins first, then the workspace's own.
import type { Queryable } from '../../platform/store/db';
import {
  getWorkflow,
  insertWorkflow,
  listWorkflows,
  workflowView,
  type WorkflowDoc,
  type WorkflowView,
} from '../../platform/store/workflows';
import { DomainError } from '../errors';
import { BUILTIN_WORKFLOWS } from './builtins';

export const isBuiltinWorkflow = (id: string): boolean => id in BUILTIN_WORKFLOWS;

/** A workspace's own definition; the built-ins' ids are theirs. */
export async function saveWorkflow(
  db: Queryable,
  workspaceId: string,
  id: string,
  doc: WorkflowDoc,
): Promise<WorkflowView> {
  if (isBuiltinWorkflow(id))
    throw new DomainError('builtin-workflow', `workflow ${id} is built in and cannot be replaced`);
  return insertWorkflow(db, workspaceId, id, doc);
}

export async function findWorkflow(db: Queryable, workspaceId: string, id: string): Promise<WorkflowView | undefined> {
  const builtin = BUILTIN_WORKFLOWS[id];
  if (builtin) return workflowView(id, { ...builtin, builtin: true });
  return getWorkflow(db, workspaceId, id);
}

export async function listAllWorkflows(db: Queryable, workspaceId: string, opts: { limit: number; schema?: string }) {
  const builtins = Object.entries(BUILTIN_WORKFLOWS)
    .filter(([, w]) => !opts.schema || w.schema === opts.schema)
    .map(([id, w]) => workflowView(id, { ...w, builtin: true }));
  const own = await listWorkflows(db, workspaceId, opts);
  return [...builtins, ...own].slice(0, opts.limit);
}

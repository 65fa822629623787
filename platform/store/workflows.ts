// Workflow definitions stored per workspace. The built-in ones live in code (domain/jobs/builtins.ts).
import crypto from 'node:crypto';
import type { Step } from '../../contract/job';
import type { Queryable } from './db';
import { ConflictError } from './conflict';
import { iso, isUniqueViolation } from './rows';

export interface WorkflowDoc {
  name: string;
  description?: string;
  schema: string;
  steps: Step[];
  rescue: Step[];
}

interface WorkflowRow {
  id: string;
  name: string;
  description: string | null;
  doc_schema: string;
  steps: Step[];
  rescue: Step[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** Short content hash so a client can tell two versions apart. */
export const definitionHash = (d: WorkflowDoc): string =>
  crypto
    .createHash('sha256')
    .update(JSON.stringify([d.name, d.schema, d.steps, d.rescue]))
    .digest('hex')
    .slice(0, 10);

export function workflowView(
  id: string,
  d: WorkflowDoc & { version?: number; created_at?: Date; updated_at?: Date; builtin?: boolean },
) {
  return {
    id,
    name: d.name,
    ...(d.description != null && { description: d.description }),
    schema: d.schema,
    steps: d.steps,
    rescue: d.rescue,
    version: String(d.version ?? 1),
    hash: definitionHash(d),
    ...(d.builtin && { builtin: true }),
    ...(d.created_at && { created_at: iso(d.created_at) }),
    ...(d.updated_at && { updated_at: iso(d.updated_at) }),
  };
}

export type WorkflowView = ReturnType<typeof workflowView>;

const fromRow = (r: WorkflowRow) =>
  workflowView(r.id, { ...r, description: r.description ?? undefined, schema: r.doc_schema });

export async function insertWorkflow(
  db: Queryable,
  workspaceId: string,
  id: string,
  d: WorkflowDoc,
): Promise<WorkflowView> {
  try {
    const { rows } = await db.query<WorkflowRow>(
      `INSERT INTO workflows (workspace_id, id, name, description, doc_schema, steps, rescue)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [workspaceId, id, d.name, d.description ?? null, d.schema, JSON.stringify(d.steps), JSON.stringify(d.rescue)],
    );
    return fromRow(rows[0]!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a workflow with id ${id} already exists`, 'id-taken');
    throw err;
  }
}

export async function getWorkflow(db: Queryable, workspaceId: string, id: string): Promise<WorkflowView | undefined> {
  const { rows } = await db.query<WorkflowRow>('SELECT * FROM workflows WHERE workspace_id = $1 AND id = $2', [
    workspaceId,
    id,
  ]);
  return rows[0] && fromRow(rows[0]);
}

export async function listWorkflows(db: Queryable, workspaceId: string, opts: { limit: number; schema?: string }) {
  const { rows } = await db.query<WorkflowRow>(
    `SELECT * FROM workflows WHERE workspace_id = $1 AND ($3::text IS NULL OR doc_schema = $3)
     ORDER BY created_at DESC, id DESC LIMIT $2`,
    [workspaceId, opts.limit, opts.schema ?? null],
  );
  return rows.map(fromRow);
}

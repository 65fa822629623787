// What a step acting outside (the directory, Peppol) reads of its entry before it acts, in one read composed into the
// statement that records the step's start (job-journal.ts writeJournal's effect): the step makes no round trip of its
// own for it, and every fact is read at the same instant.
import type { Queryable } from './db';
import { approvedMandateJson, approvedMandateOf, type ApprovedMandate, type ApprovedMandateJson } from './mandates';
import type { StepTargets } from './directory-step-targets';
import { runEffect, type StatementEffect } from './statement-effect';

export interface EntryFacts {
  /** Whether the entry is in the step's workspace. */
  found: boolean;
  siren?: string;
  /** Its VAT number as it states it now (GOBL `tax_id`), shown with its mandate's facts in the Peppol Directory. */
  taxId?: unknown;
  /** Its mandate in force (mandates.ts approvedMandate). */
  mandate?: ApprovedMandate;
  /** The values of the meta keys asked for, as stored, by key. */
  metas: Record<string, unknown>;
  /** The entry that holds the SIREN's directory registration. */
  holder?: string;
  /** The directory lines the entry holds, by address. */
  lines: { address: string; idInstance: number }[];
  /** What an earlier attempt of the same step planned (directory-step-targets.ts). */
  planned?: StepTargets;
}

export interface FactIds {
  workspaceId: string;
  entryId: string;
  jobId: string;
  stepId: string;
}

/** The read as a statement's effect (read only: it writes nothing, requires nothing). */
export function entryFactsRead(ids: FactIds, metaKeys: readonly string[]): StatementEffect {
  return {
    params: [ids.workspaceId, ids.entryId, ids.jobId, ids.stepId, [...metaKeys]],
    result: '(SELECT facts FROM entry_facts)',
    ctes(first) {
      const [workspace, entry, job, step, keys] = [0, 1, 2, 3, 4].map((i) => `$${first + i}`);
      return `entry_facts_entry AS (
       SELECT siren, data->'tax_id' AS tax_id FROM entries WHERE id = ${entry}::uuid AND workspace_id = ${workspace}::uuid
     ), entry_facts AS (
       SELECT json_build_object(
         'found', EXISTS (SELECT 1 FROM entry_facts_entry),
         'siren', (SELECT siren FROM entry_facts_entry),
         'taxId', (SELECT tax_id FROM entry_facts_entry),
         'mandate', (${approvedMandateJson(`${entry}::uuid`)}),
         'metas', (SELECT json_object_agg(key, value) FROM entry_meta WHERE entry_id = ${entry}::uuid AND key = ANY (${keys}::text[])),
         'holder', (SELECT entry_id FROM directory_holdings WHERE siren = (SELECT siren FROM entry_facts_entry)),
         'lines', (SELECT json_agg(json_build_object('address', address_id, 'idInstance', id_instance) ORDER BY address_id)
                   FROM directory_lines WHERE entry_id = ${entry}::uuid),
         'planned', (SELECT json_build_object('targets', targets, 'takenOverFrom', taken_over_from)
                     FROM directory_step_targets WHERE job_id = ${job}::uuid AND step_id = ${step})
       ) AS facts
     )`;
    },
  };
}

interface FactsJson {
  found: boolean;
  siren: string | null;
  taxId: unknown;
  mandate: ApprovedMandateJson | null;
  metas: Record<string, unknown> | null;
  holder: string | null;
  lines: { address: string; idInstance: number | string }[] | null;
  planned: { targets: StepTargets['targets']; takenOverFrom: string | null } | null;
}

/** The facts as the statement returned them (entryFactsRead's result). */
export function entryFactsOf(raw: unknown): EntryFacts {
  const f = raw as FactsJson;
  const mandate = approvedMandateOf(f.mandate);
  return {
    found: f.found,
    ...(f.siren != null && { siren: f.siren }),
    ...(f.taxId != null && { taxId: f.taxId }),
    ...(mandate && { mandate }),
    metas: f.metas ?? {},
    ...(f.holder != null && { holder: f.holder }),
    lines: (f.lines ?? []).map((l) => ({ address: l.address, idInstance: Number(l.idInstance) })),
    ...(f.planned && {
      planned: {
        targets: f.planned.targets,
        ...(f.planned.takenOverFrom && { takenOverFrom: f.planned.takenOverFrom }),
      },
    }),
  };
}

/** The facts read on their own (a step called outside its journal, as the tests do). */
export async function readEntryFacts(db: Queryable, ids: FactIds, metaKeys: readonly string[]): Promise<EntryFacts> {
  return entryFactsOf(await runEffect(db, entryFactsRead(ids, metaKeys)));
}

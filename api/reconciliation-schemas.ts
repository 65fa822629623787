// The nightly reconciliation as the operators' API answers it: runs, findings.
import { z } from 'zod';
import { DRIFT_KINDS } from '../domain/reconciliation/findings';
import { timestamp, uuid } from '../web/http/schema-primitives';

const counts = z.record(z.string(), z.number().int());

export const run = z
  .object({
    id: uuid,
    day: z.string().describe('the directory day it compared on'),
    report_only: z.boolean().describe('it only reported (a new deployment’s first nights)'),
    status: z.enum(['running', 'done', 'failed']),
    lines_read: z.number().int(),
    participants_read: z.number().int(),
    requests: counts.describe('requests sent, by system: annuaire, sml, dns'),
    counts: counts.describe('findings it saw, by kind'),
    actions: counts.describe('what it did, by outcome (moved-out, ceased, migrated, repaired, awaiting-agreement…)'),
    started_at: timestamp,
    finished_at: timestamp.optional(),
  })
  .meta({ id: 'ReconciliationRun' });

export const reconciliationStatus = z
  .object({ runs: z.array(run), open: counts.describe('open findings by kind') })
  .meta({ id: 'ReconciliationStatus' });

export const finding = z
  .object({
    id: uuid,
    kind: z.enum(DRIFT_KINDS),
    subject: z.string().describe('the addressing identifier, or the Peppol participant id'),
    entry_id: uuid.optional(),
    workspace_id: uuid.optional(),
    details: z.record(z.string(), z.unknown()).describe('e.g. the platform and day of a take-over'),
    runs: z.number().int().describe('how many runs have seen it'),
    first_seen_at: timestamp,
    last_seen_at: timestamp,
    confirmed_at: timestamp.optional(),
    confirmed_by: uuid.nullable().optional(),
    outcome: z.enum(['acted', 'reported', 'gone']).optional(),
    outcome_detail: z.string().optional(),
    closed_at: timestamp.optional(),
  })
  .meta({ id: 'DriftFinding' });

export const findingList = z
  .object({ list: z.array(finding), next_cursor: z.string().optional() })
  .meta({ id: 'DriftFindingList' });
export const confirmed = z
  .object({ confirmed: z.number().int(), ids: z.array(uuid) })
  .meta({ id: 'DriftConfirmations' });
export const runStarted = z
  .object({ requested: z.literal(true).describe('the Schedule was asked; it skips the run while one is going') })
  .meta({ id: 'ReconciliationRequested' });

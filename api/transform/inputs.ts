// What transform/v1's routes read: path, query and body schemas.
import { z } from 'zod';
import { decodeTimeCursor } from '../../platform/store/rows';
import { WAITING_FOR } from '../../platform/store/waiting-for';
import { workflowInput } from '../../domain/jobs/definition-schema';
import {
  ADDRESS_UPDATE_WORKFLOW_ID,
  REGISTRATION_WORKFLOW_ID,
  UNREGISTRATION_WORKFLOW_ID,
} from '../../domain/jobs/builtins';
import { STORED_JSON_LIMITS, jsonOverLimits } from '../../web/http/bounded-json';

export const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
export const keyParam = z.object({ key: z.string().min(1).max(255) });

export const jobBody = z.strictObject({
  workflow_id: z
    .uuid({ error: 'must be a UUID' })
    .describe(
      `the workflow to run: the registration ${REGISTRATION_WORKFLOW_ID}, the unregistration ${UNREGISTRATION_WORKFLOW_ID}, the address update ${ADDRESS_UPDATE_WORKFLOW_ID}, or one of your own`,
    ),
  silo_entry_id: z.uuid({ error: 'must be a UUID' }),
  key: z.string().trim().min(1).max(255).optional(),
  args: z
    .record(z.string().max(100), z.string().max(10_000))
    .superRefine((args, ctx) => {
      const over = jsonOverLimits(args, 'args', STORED_JSON_LIMITS);
      if (over) ctx.addIssue({ code: 'custom', message: over });
    })
    .describe(
      `stored with the job: at most ${STORED_JSON_LIMITS.values.toLocaleString('en')} values and keys and ` +
        `${STORED_JSON_LIMITS.bytes.toLocaleString('en')} bytes as JSON`,
    )
    .default({}),
  tags: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
});

/** A definition as it is stored (its steps and rescue, copied into each of its jobs): within STORED_JSON_LIMITS. */
export const workflowBody = workflowInput.superRefine((w, ctx) => {
  const stored = { steps: w.steps, rescue: w.rescue };
  const over = jsonOverLimits(stored, 'a workflow definition (its steps and rescue)', STORED_JSON_LIMITS);
  if (over) ctx.addIssue({ code: 'custom', path: ['steps'], message: over });
});

export const createJobQuery = z.strictObject({
  wait: z.coerce
    .number({ error: 'a number of seconds' })
    .int('whole seconds')
    .min(0)
    .max(60, 'at most 60 seconds')
    .optional(),
});

export const JOB_STATUSES = ['QUEUED', 'RUN', 'WAIT', 'OK', 'ERR', 'CANCEL'] as const;

export const listJobsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20),
  cursor: z
    .string()
    .max(200)
    .refine((c) => decodeTimeCursor(c) !== undefined, 'not a cursor from a previous page')
    .optional(),
  created_at: z.iso
    .datetime({ offset: true, error: 'an ISO 8601 timestamp, e.g. 2026-11-27T00:00:00Z' })
    .refine((t) => new Date(t).getUTCFullYear() >= 1970, 'a time from 1970 on')
    .optional(),
  silo_entry_id: z.uuid({ error: 'must be a UUID' }).optional(),
  status: z.enum(JOB_STATUSES, { error: `one of ${JOB_STATUSES.join(', ')}` }).optional(),
  workflow_id: z.uuid({ error: 'must be a UUID' }).optional(),
  waiting_for: z
    .enum(WAITING_FOR, { error: `one of ${WAITING_FOR.join(', ')}` })
    .optional()
    .describe('only the jobs in WAIT for this: signer, decision, second-decision, resubmission or effective-date'),
});

export const cancelJobBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe('why, as the job\'s journal and fault will say; "cancelled through the API" when not given'),
});

export const listWorkflowsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20),
  schema: z.string().max(50).optional(),
});

// Request schemas of workflow definitions (transform/v1). `action` is accepted as an alias of `provider`.
import { z } from 'zod';
import { isApprovalWait, type ProviderId } from '../../contract/providers';
import { PARTY_STATES, isPartyState } from '../../contract/job';

const PARTY_STATE_PROVIDER: ProviderId = 'silo.state';

const stepInput = z
  .strictObject({
    id: z.uuid(),
    name: z.string().trim().min(1).max(200),
    provider: z
      .string()
      .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, 'a provider id such as silo.state')
      .optional(),
    action: z
      .string()
      .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, 'a provider id such as silo.state')
      .optional(),
    summary: z.string().max(500).optional(),
    notes: z.string().max(2000).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((s, ctx) => {
    if (!s.provider && !s.action)
      ctx.addIssue({ code: 'custom', path: ['provider'], message: 'provider (or action) is required' });
    if (s.provider && s.action && s.provider !== s.action) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'provider and action differ' });
    }
    const provider = s.provider ?? s.action;
    if (provider === PARTY_STATE_PROVIDER && !isPartyState(s.config?.state)) {
      ctx.addIssue({
        code: 'custom',
        path: ['config', 'state'],
        message: `silo.state needs config.state, one of ${PARTY_STATES.join(', ')}`,
      });
    }
  })
  .transform(({ action, notes: _notes, ...s }) => ({ ...s, provider: (s.provider ?? action)! }));

const steps = z.array(stepInput).max(50);

export const workflowInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
    schema: z.literal('org/party', { error: 'only org/party workflows are supported' }),
    steps: steps.min(1, 'a workflow needs at least one step'),
    rescue: steps.nullish().transform((r) => r ?? []),
  })
  .superRefine((w, ctx) => {
    // The wait resumes on the job's one mandate decision: a second wait, or one in the rescue, could never end.
    const waits = w.steps.flatMap((s, i) => (isApprovalWait(s) ? [i] : []));
    for (const i of waits.slice(1))
      ctx.addIssue({
        code: 'custom',
        path: ['steps', i, 'provider'],
        message: 'a workflow waits for approval (gov-fr.agreement.wait.approval) at most once',
      });
    w.rescue.forEach((s, i) => {
      if (isApprovalWait(s))
        ctx.addIssue({
          code: 'custom',
          path: ['rescue', i, 'provider'],
          message: 'a rescue step cannot wait for approval (gov-fr.agreement.wait.approval)',
        });
    });
    const seen = new Set<string>();
    for (const [list, arr] of [
      ['steps', w.steps],
      ['rescue', w.rescue],
    ] as const) {
      arr.forEach((s, i) => {
        if (seen.has(s.id))
          ctx.addIssue({ code: 'custom', path: [list, i, 'id'], message: `step id ${s.id} is used twice` });
        seen.add(s.id);
      });
    }
  });

export type WorkflowInput = z.infer<typeof workflowInput>;

// The shapes of the platform's operators as the API answers them: who signed in, operators and their credentials,
// the access log.
import { z } from 'zod';
import { OPERATOR_ROLES } from '../platform/store/operators';
import { ACCESS_ACTIONS } from '../platform/store/operator-access-log';
import { timestamp, uuid } from '../web/http/schema-primitives';

const roles = z.array(z.enum(OPERATOR_ROLES));

export const reviewSession = z
  .object({
    operator: z.object({ id: uuid, name: z.string(), roles }),
    idle_timeout_s: z.number().int().describe('the session ends after this long without a request'),
  })
  .meta({ id: 'ReviewSession' });

const credentialView = z.object({
  id: uuid,
  prefix: z.string().describe('the first characters of the secret, to tell credentials apart'),
  created_at: timestamp,
  created_by: uuid.nullable().describe('the operator-admin who created it; null: the command line'),
  expires_at: timestamp,
  revoked_at: timestamp.nullable(),
});

export const operatorList = z
  .object({
    list: z.array(
      z.object({
        id: uuid,
        name: z.string(),
        roles,
        created_at: timestamp,
        created_by: uuid.nullable(),
        credentials: z.array(credentialView),
      }),
    ),
  })
  .meta({ id: 'OperatorList' });

export const issuedCredential = z
  .object({
    id: uuid,
    operator_id: uuid,
    credential: z.string().describe('the secret: shown in this answer only (opc_…)'),
    prefix: z.string(),
    expires_at: timestamp,
  })
  .meta({ id: 'IssuedOperatorCredential' });

export const createdOperator = issuedCredential
  .extend({ operator: z.object({ id: uuid, name: z.string(), roles }) })
  .meta({ id: 'CreatedOperator' });

export const accessLog = z
  .object({
    list: z.array(
      z.object({
        at: timestamp,
        operator_id: uuid.nullable().describe('null: the command line'),
        operator_name: z.string(),
        action: z.enum(ACCESS_ACTIONS),
        entry_id: uuid.nullable(),
        job_id: uuid.nullable(),
        detail: z.record(z.string(), z.unknown()),
      }),
    ),
    next_cursor: z.string().optional(),
  })
  .meta({ id: 'OperatorAccessLog' });

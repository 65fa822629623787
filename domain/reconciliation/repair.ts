// Putting back a line of ours that vanished or was ended without us: only when the company's mandate in force still
// covers the address as the party states it now, with nothing it states changed since (else a new signature would be
// needed, and that is the integrator's call: the finding is reported). The repair is the address update itself,
// queued as a job of the party's workspace (the API's sweeper starts it): its directory step reads every line in
// force and to come, so it never writes a line the directory already holds, and its journal and events say what it
// did. Keyed by the finding, so a retried activity queues it once.
import crypto from 'node:crypto';
import type { Db } from '../../platform/store/db';
import { ConflictError } from '../../platform/store/conflict';
import { getEntryRow } from '../../platform/store/entries';
import { approvedMandate } from '../../platform/store/mandates';
import { ADDRESS_UPDATE } from '../../contract/definitions';
import { sameAddress } from '../directory/lines';
import { ADDRESS_UPDATE_WORKFLOW_ID } from '../jobs/builtins';
import { workflowTypeOf } from '../jobs/jobs';
import { recordJob } from '../jobs/record-job';
import { beyondMandate, invoicingAddressesOf, signedScopeOf } from '../party/invoicing-addresses';
import { factsChangedSince } from '../party/mandate-facts';

/** Why the mandate in force does not cover putting the address back; undefined when it does. */
export async function notCovered(
  db: Db,
  at: { workspaceId: string; entryId: string; address: string },
): Promise<string | undefined> {
  const entry = await getEntryRow(db, at.workspaceId, at.entryId);
  if (!entry?.siren || entry.state !== 'registered') return `the party is ${entry?.state ?? 'gone'}, not registered`;
  const inForce = await approvedMandate(db, at.entryId);
  if (!inForce) return 'the party has no approved mandate in force';
  const wanted = await invoicingAddressesOf(db, at.entryId, entry.siren);
  if (!wanted.addresses.some((a) => sameAddress(a.id, at.address)))
    return `the party no longer states ${at.address} among its invoicing addresses`;
  const beyond = beyondMandate(signedScopeOf(inForce.invoicingAddresses, entry.siren), wanted.addresses);
  if (beyond.length) return `${beyond.map((a) => a.id).join(', ')} beyond mandate ${inForce.number}`;
  const changed = factsChangedSince(inForce.facts, entry.data);
  if (changed.length) return `${changed.join(', ')} changed since mandate ${inForce.number}`;
  return undefined;
}

/** Queues the address update that puts the line back; 'busy' when another job of the entry is running. */
export async function queueRepair(
  db: Db,
  at: { workspaceId: string; entryId: string; findingId: string },
): Promise<{ jobId: string } | 'busy' | 'queued-before'> {
  try {
    const r = await recordJob(db, {
      id: crypto.randomUUID(),
      workspaceId: at.workspaceId,
      key: `reconciliation-${at.findingId}`,
      workflowId: ADDRESS_UPDATE_WORKFLOW_ID,
      workflowType: workflowTypeOf(ADDRESS_UPDATE_WORKFLOW_ID),
      entryId: at.entryId,
      docSchema: 'org/party',
      definition: ADDRESS_UPDATE,
      args: {},
      tags: ['reconciliation'],
      registers: false,
      unregisters: true,
    });
    return r.outcome === 'inserted' ? { jobId: r.job.id } : 'busy';
  } catch (err) {
    if (err instanceof ConflictError && err.code === 'key-taken') return 'queued-before';
    if (err instanceof ConflictError && err.code === 'job-running') return 'busy';
    throw err;
  }
}

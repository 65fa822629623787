// The SML and the Peppol Directory are retried when their Retry-After asks, as the Annuaire is: the clients keep the
// header of a 429 or 503, and peppol.register hands it to Temporal as the next retry's delay.
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peppolActivities } from '../../activities/peppol';
import { loadConfig } from '../../platform/config';
import { createDirectoryClient } from '../../integrations/peppol/directory-client';
import { createSmlClient } from '../../integrations/peppol/sml-client';
import { startPeppolDirectorySimulator, type PeppolDirectorySimulator } from '../../simulators/peppol-directory';
import { startSmlSimulator, type SmlSimulator } from '../../simulators/sml';
import type { Db } from '../../platform/store/db';
import { insertEntry } from '../../platform/store/entries';
import { createWorkspace } from '../../platform/store/workspaces';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { freshDb, log } from '../support/harness';
import { approveMandate } from '../support/mandate';
import { createClients } from '../../integrations/clients';

const SMP = 'RETRY-SMP';

describe('Retry-After of the SML and the Peppol Directory', () => {
  let db: Db, drop: () => Promise<void>;
  let sml: SmlSimulator, pd: PeppolDirectorySimulator;

  beforeAll(async () => {
    ({ db, drop } = await freshDb());
    [sml, pd] = await Promise.all([startSmlSimulator({ port: 0 }), startPeppolDirectorySimulator({ port: 0 })]);
  });
  afterAll(async () => {
    await Promise.all([sml.close(), pd.close()]);
    await drop();
  });

  it('the clients keep it on 429 and 503, not on a refusal', async () => {
    const smlClient = createSmlClient({ url: sml.url, smpId: SMP });
    const directory = createDirectoryClient({ url: pd.url });
    sml.setFaults({ status: 429, retryAfterSeconds: 3 });
    await expect(smlClient.create('0225:552032534')).rejects.toMatchObject({
      kind: 'http',
      status: 429,
      retryable: true,
      retryAfterMs: 3000,
    });
    pd.setFaults({ status: 503, retryAfterSeconds: 2 });
    await expect(directory.index('0225:552032534')).rejects.toMatchObject({
      status: 503,
      retryable: true,
      retryAfterMs: 2000,
    });
    pd.setFaults({ status: 503 });
    await expect(directory.index('0225:552032534')).rejects.toMatchObject({ status: 503, retryAfterMs: undefined });
    pd.setFaults({ status: 403, retryAfterSeconds: 2 });
    await expect(directory.index('0225:552032534')).rejects.toMatchObject({
      status: 403,
      retryable: false,
      retryAfterMs: undefined,
    });
    sml.setFaults(undefined);
    pd.setFaults(undefined);
  });

  it('peppol.register asks Temporal to retry after that delay', async () => {
    const config = loadConfig({ SML_URL: sml.url, PEPPOL_DIRECTORY_URL: pd.url, SMP_ID: SMP });
    const acts = peppolActivities({ db, log, config }, createClients(config));
    const siren = makeSiren();
    const workspaceId = (await createWorkspace(db, 'retry')).id;
    const entry = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    await approveMandate(db, { entryId: entry.id });
    const input = {
      jobId: crypto.randomUUID(),
      workspaceId,
      entryId: entry.id,
      stepId: crypto.randomUUID(),
      config: {},
    };
    sml.setFaults({ status: 503, retryAfterSeconds: 4 });
    const err = await acts.register(input).catch((e: unknown) => e);
    sml.setFaults(undefined);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'sml-unavailable', nonRetryable: false, nextRetryDelay: 4000 });
    expect(await acts.register(input)).toMatchObject({ sml: true, directory: true });
  });
});

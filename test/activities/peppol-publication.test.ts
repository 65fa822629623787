// Publication end to end, without Temporal: peppol.register / unregister against the SML and Directory
// simulators, the Directory reading business cards back from our SMP (served over HTTP). Checks the safe order
// (register: SMP → SML → Directory; unregister: Directory → SML → SMP) and retries after lost responses.
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { peppolActivities } from '../../activities/peppol';
import { entryParticipants } from '../../platform/store/peppol-participants';
import { startPeppolDirectorySimulator, type PeppolDirectorySimulator } from '../../simulators/peppol-directory';
import { startSmlSimulator, type SmlSimulator } from '../../simulators/sml';
import { loadConfig } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { insertEntry } from '../../platform/store/entries';
import { createWorkspace } from '../../platform/store/workspaces';
import type { StepInput } from '../../contract/journal';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { freshDb, log } from '../support/harness';
import { approveMandate } from '../support/mandate';
import { get, startSmpServer, xmllint, type SmpServer } from '../support/smp';
import { createClients } from '../../integrations/clients';

const SMP = 'TEST-SMP';

describe('Peppol publication with our SMP: order and retries', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let smp: SmpServer;
  let sml: SmlSimulator;
  let pd: PeppolDirectorySimulator;
  let acts: ReturnType<typeof peppolActivities>;
  let ws: string;

  beforeAll(async () => {
    ({ db, drop } = await freshDb());
    smp = await startSmpServer(db);
    sml = await startSmlSimulator({ port: 0, allowedSmpIds: [SMP] });
    pd = await startPeppolDirectorySimulator({ port: 0, smpUrl: smp.smpUrl });
    const config = loadConfig({ SML_URL: sml.url, PEPPOL_DIRECTORY_URL: pd.url, SMP_ID: SMP });
    acts = peppolActivities({ db, log, config }, createClients(config));
    ws = (await createWorkspace(db, 'pub')).id;
  });
  afterEach(() => {
    sml.setFaults(undefined);
    pd.setFaults(undefined);
  });
  afterAll(async () => {
    await Promise.all([sml.close(), pd.close(), smp.close()]);
    await drop();
  });

  const newParty = async () => {
    const siren = makeSiren();
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    await approveMandate(db, { entryId: e.id });
    const participant = `iso6523-actorid-upis::0225:${siren}`;
    return {
      entryId: e.id,
      workspaceId: ws,
      siren,
      participant,
      smpPath: `${smp.smpUrl}/${encodeURIComponent(participant)}`,
    };
  };
  type Party = Awaited<ReturnType<typeof newParty>>;
  const step = (e: Party, config: Record<string, unknown> = {}): StepInput => ({
    jobId: crypto.randomUUID(),
    workspaceId: e.workspaceId,
    entryId: e.entryId,
    stepId: crypto.randomUUID(),
    config,
  });
  const failure = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  };
  /** Where the party is published: our SMP (HTTP), the SML, the Directory. */
  const where = async (e: Party) => ({
    smp: (await get(e.smpPath)).status === 200,
    sml: sml.participants(SMP).includes(e.participant),
    directory: pd.indexed().includes(e.participant),
  });
  const ALL = { smp: true, sml: true, directory: true };
  const NONE = { smp: false, sml: false, directory: false };

  it('registers: the Directory reads a schema-valid business card back from our SMP', async () => {
    const e = await newParty();
    await acts.register(step(e));
    expect(await where(e)).toEqual(ALL);
    const card = pd.businessCard(e.participant);
    expect(card).toBeDefined();
    expect(xmllint(card!, 'peppol-directory-business-card-20180621.xsd').ok).toBe(true);
    expect(card).toContain(`<Identifier scheme="FR:SIRENE">${e.siren}</Identifier>`);
  });

  it('unregisters Directory first, then SML, then SMP: a failure in between leaves the SML pointing at a live SMP', async () => {
    const e = await newParty();
    await acts.register(step(e));
    pd.setFaults({ rate: 1, status: 503 });
    expect(await failure(acts.unregister(step(e)))).toMatchObject({
      type: 'directory-unavailable',
      nonRetryable: false,
    });
    expect(await where(e)).toEqual(ALL); // nothing removed yet
    pd.setFaults(undefined);
    sml.setFaults({ rate: 1, status: 503 });
    expect(await failure(acts.unregister(step(e)))).toMatchObject({
      type: 'sml-unavailable',
      nonRetryable: false,
    });
    expect(await where(e)).toEqual({ smp: true, sml: true, directory: false });
    sml.setFaults(undefined);
    await acts.unregister(step(e));
    expect(await where(e)).toEqual(NONE);
    expect((await entryParticipants(db, ws, e.entryId))[0]).toMatchObject({
      enabled: false,
      smlRegistered: false,
      directoryRegistered: false,
    });
  });

  it('unregistration retried after lost responses completes, leaving nothing behind', async () => {
    const e = await newParty();
    await acts.register(step(e));
    // The Directory drops it but the answer is lost: its DELETE, idempotent, is sent again within the call and finds
    // it gone. The SML deletes and the answer is lost: a Delete is not sent twice, so the step fails, to be retried.
    pd.setFaults({ loseResponses: true });
    sml.setFaults({ loseResponses: true });
    expect(await failure(acts.unregister(step(e)))).toMatchObject({
      type: 'sml-unavailable',
      nonRetryable: false,
    });
    expect(await where(e)).toEqual({ smp: true, sml: false, directory: false }); // SMP last: still serving
    sml.setFaults(undefined);
    pd.setFaults(undefined);
    await expect(acts.unregister(step(e))).resolves.toMatchObject({
      enabled: false,
      sml: false,
      directory: false,
    });
    expect(await where(e)).toEqual(NONE);
    expect((await entryParticipants(db, ws, e.entryId))[0]).toMatchObject({ enabled: false });
  });

  it('registration retried after lost responses completes, published once everywhere', async () => {
    const e = await newParty();
    sml.setFaults({ loseResponses: true });
    expect(await failure(acts.register(step(e)))).toMatchObject({
      type: 'sml-unavailable',
      nonRetryable: false,
    });
    expect(await where(e)).toEqual({ smp: true, sml: true, directory: false });
    sml.setFaults(undefined);
    pd.setFaults({ loseResponses: true });
    expect(await failure(acts.register(step(e)))).toMatchObject({ type: 'directory-unavailable' });
    pd.setFaults(undefined);
    await acts.register(step(e)); // the SML's "already exists" is ours: done
    expect(await where(e)).toEqual(ALL);
    expect((await entryParticipants(db, ws, e.entryId))[0]).toMatchObject({
      enabled: true,
      smlRegistered: true,
      directoryRegistered: true,
    });
  });

  it('a Directory that cannot read the business card fails the step (retryable while our SMP is unreachable)', async () => {
    const e = await newParty();
    pd.setSmpUrl('http://127.0.0.1:1/smp');
    try {
      expect(await failure(acts.register(step(e)))).toMatchObject({
        type: 'directory-unavailable',
        nonRetryable: false,
      });
    } finally {
      pd.setSmpUrl(smp.smpUrl);
    }
    expect(await where(e)).toEqual({ smp: true, sml: true, directory: false });
    await acts.register(step(e));
    expect(await where(e)).toEqual(ALL);
  });

  it('the SML answers UnauthorizedFault for an SMP id outside its allow-list: a final failure', async () => {
    const e = await newParty();
    const strangerConfig = loadConfig({ SML_URL: sml.url, PEPPOL_DIRECTORY_URL: pd.url, SMP_ID: 'STRANGER-SMP' });
    const other = peppolActivities({ db, log, config: strangerConfig }, createClients(strangerConfig));
    const err = await failure(other.register(step(e)));
    expect(err).toMatchObject({ type: 'sml-rejected', nonRetryable: true });
    expect(err.message).toMatch(/not authorized/);
    expect(sml.participants('STRANGER-SMP')).toEqual([]);
  });
});

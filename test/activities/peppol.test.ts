// peppol.register / peppol.unregister called as plain functions, against the SML and Directory simulators.
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peppolActivities } from '../../activities/peppol';
import { loadConfig } from '../../platform/config';
import { createSmlClient } from '../../integrations/peppol/sml-client';
import { entryParticipants } from '../../platform/store/peppol-participants';
import { startPeppolDirectorySimulator, type PeppolDirectorySimulator } from '../../simulators/peppol-directory';
import { startSmlSimulator, type SmlSimulator } from '../../simulators/sml';
import type { Db } from '../../platform/store/db';
import { insertEntry } from '../../platform/store/entries';
import { putMeta } from '../../platform/store/entry-meta';
import { INVOICING_ADDRESSES_META } from '../../domain/party/invoicing-addresses';
import { recordDirectoryLine } from '../../platform/store/directory-holdings';
import { createWorkspace } from '../../platform/store/workspaces';
import type { StepInput } from '../../contract/journal';
import { makeSiren, party, siretOf } from '../../bin/stack/sample-parties';
import { freshDb, log } from '../support/harness';
import { approveMandate } from '../support/mandate';
import { createClients } from '../../integrations/clients';

const SMP = 'TEST-SMP';
const REGISTER = { doc_groups: ['france'], visibility: 'smp+sml+peppol', directory: true, disable: false };

describe('peppol activities', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let sml: SmlSimulator;
  let pd: PeppolDirectorySimulator;
  let acts: ReturnType<typeof peppolActivities>;
  let ws: string;

  beforeAll(async () => {
    ({ db, drop } = await freshDb());
    sml = await startSmlSimulator({ port: 0 });
    pd = await startPeppolDirectorySimulator({ port: 0 });
    const config = loadConfig({ SML_URL: sml.url, PEPPOL_DIRECTORY_URL: pd.url, SMP_ID: SMP });
    acts = peppolActivities({ db, log, config }, createClients(config));
    ws = (await createWorkspace(db, 'acme')).id;
  });
  afterAll(async () => {
    await sml.close();
    await pd.close();
    await drop();
  });

  const newEntry = async (siren = makeSiren(), workspaceId = ws) => {
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    await approveMandate(db, { entryId: e.id });
    return { entryId: e.id, workspaceId, siren, participant: `iso6523-actorid-upis::0225:${siren}` };
  };
  const step = (
    e: { entryId: string; workspaceId: string },
    config: Record<string, unknown> = REGISTER,
  ): StepInput => ({
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

  it('refuses to publish a party without a signed, approved mandate', async () => {
    const siren = makeSiren();
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    const err = await failure(acts.register(step({ entryId: e.id, workspaceId: ws })));
    expect(err).toMatchObject({ type: 'mandate-not-approved', nonRetryable: true });
    expect(sml.participants(SMP).some((p) => p.endsWith(siren))).toBe(false);
  });

  it('registers once at the SML and the Directory, however often it runs', async () => {
    const e = await newEntry();
    const first = await acts.register(step(e));
    const second = await acts.register(step(e));
    expect(first).toEqual({
      participantIds: [e.participant],
      visibility: 'smp+sml+peppol',
      enabled: true,
      sml: true,
      directory: true,
    });
    expect(second).toEqual(first);
    expect(sml.participants(SMP).filter((p) => p === e.participant)).toHaveLength(1);
    expect(pd.indexed().filter((p) => p === e.participant)).toHaveLength(1);
    const [rec, ...more] = await entryParticipants(db, e.workspaceId, e.entryId);
    expect(more).toEqual([]);
    expect(rec).toMatchObject({
      participantId: e.participant,
      docGroups: ['france'],
      enabled: true,
      smlRegistered: true,
      directoryRegistered: true,
    });
  });

  it('defaults to france, smp+sml+peppol, directory on', async () => {
    const e = await newEntry();
    expect(await acts.register(step(e, {}))).toMatchObject({
      visibility: 'smp+sml+peppol',
      sml: true,
      directory: true,
    });
    expect((await entryParticipants(db, ws, e.entryId))[0]).toMatchObject({ docGroups: ['france'], directory: true });
  });

  it('refuses a participant another entry holds: "0225:<SIREN> is already registered"', async () => {
    const e = await newEntry();
    await acts.register(step(e));
    const same = await newEntry(e.siren);
    const err = await failure(acts.register(step(same)));
    expect(err.message).toBe(`0225:${e.siren} is already registered`);
    expect(err).toMatchObject({ type: 'already-registered', nonRetryable: true });
    const otherWs = (await createWorkspace(db, 'other')).id;
    const elsewhere = await newEntry(e.siren, otherWs);
    expect((await failure(acts.register(step(elsewhere)))).message).toBe(`0225:${e.siren} is already registered`);
    expect(await entryParticipants(db, same.workspaceId, same.entryId)).toEqual([]);
  });

  it('visibility smp publishes in our SMP only', async () => {
    const e = await newEntry();
    const r = await acts.register(step(e, { ...REGISTER, visibility: 'smp' }));
    expect(r).toMatchObject({ enabled: true, sml: false, directory: false });
    expect(sml.participants(SMP)).not.toContain(e.participant);
    expect(pd.indexed()).not.toContain(e.participant);
    expect((await entryParticipants(db, ws, e.entryId))[0]).toMatchObject({
      enabled: true,
      smlRegistered: false,
      directoryRegistered: false,
    });
  });

  it('narrowing the visibility withdraws from the Directory, then the SML', async () => {
    const e = await newEntry();
    await acts.register(step(e));
    await acts.register(step(e, { ...REGISTER, visibility: 'smp+sml' }));
    expect(pd.indexed()).not.toContain(e.participant);
    expect(sml.participants(SMP)).toContain(e.participant);
    await acts.register(step(e, { ...REGISTER, visibility: 'smp' }));
    expect(sml.participants(SMP)).not.toContain(e.participant);
  });

  it('unregisters from the Directory and the SML and keeps the record, disabled', async () => {
    const e = await newEntry();
    await acts.register(step(e));
    const r = await acts.unregister(step(e, {}));
    expect(r).toEqual({ participantIds: [e.participant], enabled: false, sml: false, directory: false });
    expect(sml.participants(SMP)).not.toContain(e.participant);
    expect(pd.indexed()).not.toContain(e.participant);
    const [rec] = await entryParticipants(db, ws, e.entryId);
    expect(rec).toMatchObject({ enabled: false, smlRegistered: false, directoryRegistered: false });
    expect(rec!.disabledAt).toBeDefined();
    await expect(acts.unregister(step(e, {}))).resolves.toMatchObject({ enabled: false }); // twice is fine
    // Once unregistered, the participant may be registered again (by a new entry); the old row stays as history.
    const again = await newEntry(e.siren);
    await acts.register(step(again));
    expect(sml.participants(SMP)).toContain(e.participant);
    expect(await entryParticipants(db, ws, e.entryId)).toHaveLength(1);
  });

  it('disable: true unpublishes', async () => {
    const e = await newEntry();
    await acts.register(step(e));
    expect(await acts.register(step(e, { ...REGISTER, disable: true }))).toMatchObject({ enabled: false });
    expect(sml.participants(SMP)).not.toContain(e.participant);
    expect(pd.indexed()).not.toContain(e.participant);
    expect((await entryParticipants(db, ws, e.entryId))[0]!.enabled).toBe(false);
  });

  it('rejects bad config as invalid-config', async () => {
    const e = await newEntry();
    for (const config of [
      { visibility: 'public' },
      { doc_groups: ['nope'] },
      { doc_groups: [] },
      { directory: 'yes' },
      { dissable: true },
    ]) {
      const err = await failure(acts.register(step(e, config)));
      expect(err, JSON.stringify(config)).toMatchObject({ type: 'invalid-config', nonRetryable: true });
    }
    expect(await entryParticipants(db, ws, e.entryId)).toEqual([]);
  });

  it('retries when the SML is unavailable, and succeeds once it is back', async () => {
    const e = await newEntry();
    sml.setFaults({ rate: 1, status: 503 });
    try {
      const err = await failure(acts.register(step(e)));
      expect(err).toMatchObject({ type: 'sml-unavailable', nonRetryable: false });
    } finally {
      sml.setFaults(undefined);
    }
    expect(await acts.register(step(e))).toMatchObject({ sml: true, directory: true });
    expect(sml.participants(SMP)).toContain(e.participant);
  });

  it('fails for good when another SMP holds the participant at the SML', async () => {
    const e = await newEntry();
    await createSmlClient({ url: sml.url, smpId: 'OTHER-SMP' }).create(e.participant);
    const err = await failure(acts.register(step(e)));
    expect(err).toMatchObject({ type: 'sml-conflict', nonRetryable: true });
    expect(err.message).toContain('another SMP');
    expect(pd.indexed()).not.toContain(e.participant);
  });

  it('fails for good for an entry without a SIREN', async () => {
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(),
    });
    const err = await failure(acts.register(step({ entryId: e.id, workspaceId: ws })));
    expect(err).toMatchObject({ type: 'siren-missing', nonRetryable: true });
  });

  it('publishes one participant per invoicing address, and unpublishes them all', async () => {
    const siren = makeSiren();
    const siret = siretOf(siren, '0001');
    const e = await newEntry(siren);
    await putMeta(db, e.entryId, INVOICING_ADDRESSES_META, {
      src: 'api',
      value: { addresses: [{}, { siret, routing_code: { id: 'Compta_2', label: 'Comptabilité' } }, { suffix: 'EU' }] },
    });
    const ids = [siren, `${siren}_${siret}_compta_2`, `${siren}_eu`].map((a) => `iso6523-actorid-upis::0225:${a}`);
    const r = await acts.register(step(e));
    expect(r.participantIds).toEqual(ids);
    expect(
      sml
        .participants(SMP)
        .filter((p) => ids.includes(p))
        .sort(),
    ).toEqual([...ids].sort());
    expect(
      pd
        .indexed()
        .filter((p) => ids.includes(p))
        .sort(),
    ).toEqual([...ids].sort());
    expect(
      (await entryParticipants(db, e.workspaceId, e.entryId)).map((p) => [p.participantId, p.enabled]).sort(),
    ).toEqual(ids.map((id) => [id, true]).sort());
    expect(await acts.register(step(e))).toEqual(r);
    expect(sml.participants(SMP).filter((p) => ids.includes(p))).toHaveLength(3);

    const gone = await acts.unregister(step(e, {}));
    expect(gone.participantIds.sort()).toEqual([...ids].sort());
    expect(sml.participants(SMP).filter((p) => ids.includes(p))).toEqual([]);
    expect(pd.indexed().filter((p) => ids.includes(p))).toEqual([]);
  });

  it('publishes the addresses the directory step gave lines to, not a meta changed since', async () => {
    const siren = makeSiren();
    const e = await newEntry(siren);
    // The directory step wrote the SIREN's and EU's lines; the meta changed while the job waited for their start.
    for (const [address, idInstance] of [
      [siren, 1],
      [`${siren}_EU`, 2],
    ] as const)
      await recordDirectoryLine(db, { address, siren, entryId: e.entryId, idInstance });
    await putMeta(db, e.entryId, INVOICING_ADDRESSES_META, {
      src: 'api',
      value: { addresses: [{}, { suffix: 'US' }] },
    });
    const r = await acts.register(step(e));
    expect(r.participantIds).toEqual([siren, `${siren}_eu`].map((a) => `iso6523-actorid-upis::0225:${a}`));
    expect(sml.participants(SMP).filter((p) => p.includes(siren))).not.toContain(
      `iso6523-actorid-upis::0225:${siren}_us`,
    );
  });
});

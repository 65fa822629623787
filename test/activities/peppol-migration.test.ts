// Peppol migration between SMPs in the Peppol steps, against the SML and Directory simulators over HTTP: inbound with
// the key in the meta key `peppol-migration-key`, and the steps meeting a participant that has migrated away.
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peppolActivities } from '../../activities/peppol';
import { loadConfig } from '../../platform/config';
import { createSmlClient } from '../../integrations/peppol/sml-client';
import { newMigrationKey } from '../../domain/party/migration-key';
import { createClients } from '../../integrations/clients';
import { entryParticipants } from '../../platform/store/peppol-participants';
import { preparedMigration, recordPreparedMigration } from '../../platform/store/peppol-migrations';
import { startPeppolDirectorySimulator, type PeppolDirectorySimulator } from '../../simulators/peppol-directory';
import { startSmlSimulator, type SmlSimulator } from '../../simulators/sml';
import type { Db } from '../../platform/store/db';
import { insertEntry } from '../../platform/store/entries';
import { putMeta } from '../../platform/store/entry-meta';
import { PEPPOL_MIGRATION_KEY_META, putMigrationKeyMeta } from '../../domain/party/peppol-migration';
import { dataBoxFromConfig, type DataBox } from '../../platform/crypto/data-box';
import { INVOICING_ADDRESSES_META } from '../../domain/party/invoicing-addresses';
import { createWorkspace } from '../../platform/store/workspaces';
import type { StepInput } from '../../contract/journal';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { freshDb, log } from '../support/harness';
import { approveMandate } from '../support/mandate';

const SMP = 'TEST-SMP';
const OTHER = 'OTHER-SMP';
const REGISTER = { doc_groups: ['france'], visibility: 'smp+sml+peppol', directory: true, disable: false };

describe('peppol migration between SMPs', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let sml: SmlSimulator;
  let pd: PeppolDirectorySimulator;
  let acts: ReturnType<typeof peppolActivities>;
  let ws: string;
  let box: DataBox;
  /** The other SMP's SML client, and ours. */
  let other: ReturnType<typeof createSmlClient>;
  let ours: ReturnType<typeof createSmlClient>;

  beforeAll(async () => {
    ({ db, drop } = await freshDb());
    sml = await startSmlSimulator({ port: 0 });
    pd = await startPeppolDirectorySimulator({ port: 0 });
    const config = loadConfig({
      SML_URL: sml.url,
      PEPPOL_DIRECTORY_URL: pd.url,
      SMP_ID: SMP,
      // The migration keys are sealed with it (the step opens them).
      DATA_ENCRYPTION_KEYS: `test:${crypto.randomBytes(32).toString('base64')}`,
    });
    box = dataBoxFromConfig(config);
    acts = peppolActivities({ db, log, config }, createClients(config));
    ws = (await createWorkspace(db, 'acme')).id;
    other = createSmlClient({ url: sml.url, smpId: OTHER });
    ours = createSmlClient({ url: sml.url, smpId: SMP });
  });
  afterAll(async () => {
    await sml.close();
    await pd.close();
    await drop();
  });

  const newEntry = async (siren = makeSiren()) => {
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    await approveMandate(db, { entryId: e.id });
    return { entryId: e.id, workspaceId: ws, siren, participant: `iso6523-actorid-upis::0225:${siren}` };
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
  /** The meta set as the API sets it: sealed, the row's value masked. */
  const setKey = async (entryId: string, value: unknown) => {
    const { rows } = await db.query<{ siren: string }>('SELECT siren FROM entries WHERE id = $1', [entryId]);
    await putMigrationKeyMeta({ db, box }, { id: entryId, siren: rows[0]!.siren }, { src: 'api', value });
  };
  /** The participant held by the other SMP, which prepared its migration with a key. */
  const heldElsewhere = async (participant: string) => {
    sml.seedParticipant(OTHER, participant);
    const key = newMigrationKey();
    await other.prepareToMigrate(participant, key);
    return key;
  };

  describe('inbound: a participant another SMP holds', () => {
    it('is migrated with the key in peppol-migration-key; running again is fine', async () => {
      const e = await newEntry();
      await setKey(e.entryId, await heldElsewhere(e.participant));
      const first = await acts.register(step(e));
      expect(first).toMatchObject({ participantIds: [e.participant], enabled: true, sml: true, directory: true });
      expect(sml.ownerOf(e.participant)).toBe(SMP);
      expect(await ours.list()).toContain(e.participant);
      expect(sml.pendingMigration(e.participant)).toBeUndefined(); // the key is spent
      expect(pd.indexed()).toContain(e.participant);
      expect((await entryParticipants(db, ws, e.entryId))[0]).toMatchObject({ enabled: true, smlRegistered: true });
      // Again (a retried activity, a registration run again): ours already, the spent key is not used.
      expect(await acts.register(step(e))).toEqual(first);
      expect(sml.ownerOf(e.participant)).toBe(SMP);
    });

    it('reads a key an earlier version kept in clear', async () => {
      const e = await newEntry();
      await putMeta(db, e.entryId, PEPPOL_MIGRATION_KEY_META, {
        src: 'api',
        value: { [e.participant]: await heldElsewhere(e.participant) },
      });
      expect(await acts.register(step(e))).toMatchObject({ participantIds: [e.participant], sml: true });
      expect(sml.ownerOf(e.participant)).toBe(SMP);
    });

    it('takes an object mapping participant ids (with or without scheme, any case) to keys', async () => {
      const siren = makeSiren();
      const e = await newEntry(siren);
      await putMeta(db, e.entryId, INVOICING_ADDRESSES_META, {
        src: 'api',
        value: { addresses: [{}, { suffix: 'EU' }] },
      });
      const eu = `iso6523-actorid-upis::0225:${siren}_eu`;
      await setKey(e.entryId, { [`0225:${siren}_EU`]: await heldElsewhere(eu) });
      const r = await acts.register(step(e));
      expect(r.participantIds).toEqual([e.participant, eu]);
      expect(sml.ownerOf(e.participant)).toBe(SMP); // created: no migration needed
      expect(sml.ownerOf(eu)).toBe(SMP); // migrated with its key
    });

    it('fails sml-migration-refused with a key other than the prepared one, saying what to ask for', async () => {
      const e = await newEntry();
      await heldElsewhere(e.participant);
      await setKey(e.entryId, newMigrationKey());
      const err = await failure(acts.register(step(e)));
      expect(err).toMatchObject({ type: 'sml-migration-refused', nonRetryable: true });
      expect(err.message).toContain(
        `ask your previous Peppol provider (SMP) for the migration key they prepared for ${e.participant}`,
      );
      expect(err.message).toContain('peppol-migration-key');
      expect(sml.ownerOf(e.participant)).toBe(OTHER);
      expect(sml.pendingMigration(e.participant)).toMatchObject({ smpId: OTHER }); // still there for the right key
      expect(pd.indexed()).not.toContain(e.participant);
    });

    it('fails sml-migration-refused when no migration was prepared', async () => {
      const e = await newEntry();
      sml.seedParticipant(OTHER, e.participant);
      await setKey(e.entryId, newMigrationKey());
      const err = await failure(acts.register(step(e)));
      expect(err).toMatchObject({ type: 'sml-migration-refused', nonRetryable: true });
      expect(err.message).toContain(`the SML has no migration prepared for ${e.participant}`);
      expect(err.message).toContain('PrepareToMigrate');
      expect(sml.ownerOf(e.participant)).toBe(OTHER);
    });

    it('fails sml-migration-refused for a key the SML would refuse, or a meta it cannot read, before asking the SML', async () => {
      const e = await newEntry();
      await heldElsewhere(e.participant);
      for (const value of ['password', ' Ab12@#cdEF ', 42, ['Ab12@#cdEF']]) {
        await setKey(e.entryId, value);
        const err = await failure(acts.register(step(e)));
        expect(err, JSON.stringify(value)).toMatchObject({ type: 'sml-migration-refused', nonRetryable: true });
        expect(err.message).toContain('peppol-migration-key');
      }
      expect(sml.pendingMigration(e.participant)).toMatchObject({ smpId: OTHER });
    });

    it('without a key: sml-conflict, saying exactly what to do', async () => {
      const e = await newEntry();
      sml.seedParticipant(OTHER, e.participant);
      const err = await failure(acts.register(step(e)));
      expect(err).toMatchObject({ type: 'sml-conflict', nonRetryable: true });
      expect(err.message).toBe(
        `${e.participant} is registered at the SML by another SMP: ask your previous Peppol provider (SMP) for a ` +
          `migration key for ${e.participant} (they call SML PrepareToMigrate) and set it in the meta key ` +
          'peppol-migration-key, then run the registration again',
      );
    });
  });

  describe('outbound: a participant of ours migrated to another SMP', () => {
    /** Registered with us, its migration prepared (as the API does), then migrated by the other SMP. */
    const migratedAway = async () => {
      const e = await newEntry();
      await acts.register(step(e));
      const key = newMigrationKey();
      await ours.prepareToMigrate(e.participant, key);
      await recordPreparedMigration(db, { participantId: e.participant, workspaceId: ws, entryId: e.entryId, key });
      await other.migrate(e.participant, key);
      expect(sml.ownerOf(e.participant)).toBe(OTHER);
      return e;
    };

    it('unregisters: our record disabled, the SML and the Directory left to the new SMP', async () => {
      const e = await migratedAway();
      const r = await acts.unregister(step(e, {}));
      expect(r).toEqual({ participantIds: [e.participant], enabled: false, sml: false, directory: false });
      expect(sml.ownerOf(e.participant)).toBe(OTHER);
      expect(pd.indexed()).toContain(e.participant); // the Directory follows the SML to the new SMP: not ours to remove
      const [rec] = await entryParticipants(db, ws, e.entryId);
      expect(rec).toMatchObject({ enabled: false, smlRegistered: false, directoryRegistered: false });
      expect((await preparedMigration(db, e.participant))?.migratedAt).toBeDefined();
      await expect(acts.unregister(step(e, {}))).resolves.toMatchObject({ enabled: false }); // twice is fine
    });

    it('disable: true does the same', async () => {
      const e = await migratedAway();
      expect(await acts.register(step(e, { ...REGISTER, disable: true }))).toMatchObject({ enabled: false });
      expect(sml.ownerOf(e.participant)).toBe(OTHER);
      expect((await entryParticipants(db, ws, e.entryId))[0]!.enabled).toBe(false);
    });

    it('registering it again fails sml-conflict (it is the other SMP’s now) and our record goes', async () => {
      const e = await migratedAway();
      const err = await failure(acts.register(step(e)));
      expect(err).toMatchObject({ type: 'sml-conflict', nonRetryable: true });
      expect(err.message).toContain('peppol-migration-key');
      expect(sml.ownerOf(e.participant)).toBe(OTHER);
      expect((await entryParticipants(db, ws, e.entryId))[0]).toMatchObject({ enabled: false, smlRegistered: false });
    });

    it('a migration prepared but not done: unregistering removes it from the SML as usual, and forgets the migration', async () => {
      const e = await newEntry();
      await acts.register(step(e));
      const key = newMigrationKey();
      await ours.prepareToMigrate(e.participant, key);
      await recordPreparedMigration(db, { participantId: e.participant, workspaceId: ws, entryId: e.entryId, key });
      await acts.unregister(step(e, {}));
      expect(sml.ownerOf(e.participant)).toBeUndefined();
      expect(sml.pendingMigration(e.participant)).toBeUndefined();
      expect(pd.indexed()).not.toContain(e.participant);
      expect(await preparedMigration(db, e.participant)).toBeUndefined();
    });
  });
});

// apps/peppol/v1 over real HTTP: a party registered end to end leaves for another Peppol provider — we issue a
// migration key once (SML PrepareToMigrate), the new SMP migrates the participant with it, and the GET finds it out.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { newParty, register } from '../support/registration';
import { makeSiren } from '../../bin/stack/sample-parties';
import { createSmlClient } from '../../integrations/peppol/sml-client';
import { isValidMigrationKey, newMigrationKey } from '../../domain/party/migration-key';
import { entryParticipants, publishParticipant } from '../../platform/store/peppol-participants';
import {
  migrationKeyOf,
  PEPPOL_MIGRATION_KEY_META,
  sealClearMigrationKeys,
  secretMetaContext,
} from '../../domain/party/peppol-migration';
import { putMeta } from '../../platform/store/entry-meta';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const NEW_SMP = 'NEW-PROVIDER-SMP';
const keyPath = (entryId: string, participant: string) =>
  `/apps/peppol/v1/entry/${entryId}/participants/${encodeURIComponent(participant)}/migration-key`;

/** An entry of the workspace with one participant in our SMP, straight in the store (not at the SML yet). */
async function smpOnly(visibility: 'smp' | 'smp+sml' = 'smp') {
  const siren = makeSiren();
  const id = await newParty(h, siren);
  const pid = `iso6523-actorid-upis::0225:${siren}`;
  await publishParticipant(h.db, {
    participantId: pid,
    workspaceId: h.workspaceId,
    entryId: id,
    docGroups: ['france'],
    visibility,
    directory: false,
  });
  return { id, pid };
}

describe('apps/peppol/v1 migration keys', () => {
  it('issues a key once, prepares the migration at the SML, and sees the new SMP migrate it', async () => {
    // A party registered end to end: mandate signed, approved, in the directory and on Peppol (SML and Directory).
    const siren = makeSiren();
    const entryId = await newParty(h, siren);
    const job = await register(h, entryId);
    expect(job.status, JSON.stringify(job)).toBe('OK');
    const participant = `iso6523-actorid-upis::0225:${siren}`;
    expect(h.sims.sml.ownerOf(participant)).toBe(h.config.SMP_ID);

    const r = await h.api('POST', keyPath(entryId, participant));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toEqual({
      participant_id: participant,
      migration_key: expect.any(String),
      prepared_at: expect.any(String),
    });
    const key: string = r.body.migration_key;
    expect(isValidMigrationKey(key)).toBe(true);
    expect(h.sims.sml.pendingMigration(participant)).toEqual({ smpId: h.config.SMP_ID, key });

    // Kept as its hash only: the key is in that answer and nowhere else.
    const { rows } = await h.db.query<Record<string, unknown>>(
      'SELECT * FROM peppol_migrations WHERE participant_id = $1',
      [participant],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_sha256).toBe(crypto.createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(key);

    // Until the new SMP migrates it, it is ours: listed, served.
    const before = await h.api('GET', keyPath(entryId, participant));
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ participant_id: participant, prepared_at: r.body.prepared_at, migrated: false });
    expect(JSON.stringify(before.body)).not.toContain(key);
    expect((await fetch(`${h.baseUrl}/smp/${encodeURIComponent(participant)}`)).status).toBe(200);

    // The new provider's SMP takes it over with the key.
    await createSmlClient({ url: h.sims.sml.url, smpId: NEW_SMP }).migrate(participant, key);
    expect(h.sims.sml.ownerOf(participant)).toBe(NEW_SMP);

    // (A bare id, in any case, names the participant in the path too.)
    const after = await h.api('GET', keyPath(entryId, participant.split('::')[1]!.toUpperCase()));
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body).toMatchObject({ participant_id: participant, migrated: true, migrated_at: expect.any(String) });
    // Our records go: our SMP no longer serves it.
    const [rec] = await entryParticipants(h.db, h.workspaceId, entryId);
    expect(rec).toMatchObject({ participantId: participant, enabled: false });
    expect((await fetch(`${h.baseUrl}/smp/${encodeURIComponent(participant)}`)).status).toBe(404);
    expect((await h.api('GET', keyPath(entryId, participant))).body.migrated).toBe(true);
    // No longer ours: no key to issue, and the answer says why.
    const again = await h.api('POST', keyPath(entryId, participant));
    expect([again.status, again.body.code]).toEqual([409, 'not-published']);
  });

  it("404 for another workspace's entry, an unknown participant or entry, or no key issued", async () => {
    const { id, pid } = await smpOnly('smp+sml');
    await h.db.query('UPDATE peppol_participants SET sml_registered = true WHERE participant_id = $1', [pid]);
    h.sims.sml.seedParticipant(h.config.SMP_ID, pid);
    const otherKey = await h.newKey(['entries:rw']);
    const r = await h.api('POST', keyPath(id, pid), undefined, otherKey);
    expect(r).toMatchObject({ status: 404, body: { code: 'not-found' } });
    expect((await h.api('GET', keyPath(id, pid), undefined, otherKey)).status).toBe(404);
    expect(h.sims.sml.pendingMigration(pid)).toBeUndefined();
    const unknown = await h.api('POST', keyPath(id, `iso6523-actorid-upis::0225:${makeSiren()}`));
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not-found' } });
    expect((await h.api('POST', keyPath(crypto.randomUUID(), pid))).status).toBe(404);
    expect(await h.api('GET', keyPath(id, pid))).toMatchObject({ status: 404, body: { code: 'not-found' } });
    // Ours, and the SML has it: the caller's own workspace gets its key.
    expect((await h.api('POST', keyPath(id, pid))).status).toBe(201);
  });

  it('409 not-in-sml for a participant published in our SMP only', async () => {
    const { id, pid } = await smpOnly();
    const r = await h.api('POST', keyPath(id, pid));
    expect(r).toMatchObject({ status: 409, body: { code: 'not-in-sml' } });
    expect(h.sims.sml.pendingMigration(pid)).toBeUndefined();
  });

  it('400 for a path that is no participant id; 403 without entries:rw', async () => {
    const { id, pid } = await smpOnly();
    const r = await h.api('POST', keyPath(id, 'not a participant'));
    expect(r).toMatchObject({ status: 400, body: { code: 'invalid-request' } });
    const jobsOnly = await h.newKey(['jobs:rw'], h.workspaceId);
    expect((await h.api('POST', keyPath(id, pid), undefined, jobsOnly)).status).toBe(403);
  });

  it('503 sml-unavailable while the SML is down', async () => {
    const { id, pid } = await smpOnly('smp+sml');
    await h.db.query('UPDATE peppol_participants SET sml_registered = true WHERE participant_id = $1', [pid]);
    h.sims.sml.setFaults({ rate: 1, status: 503 });
    try {
      const r = await h.api('POST', keyPath(id, pid));
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(r.body.code).toBe('sml-unavailable');
    } finally {
      h.sims.sml.setFaults(undefined);
    }
  });
});

describe('peppol-migration-key: the keys a company brings from its previous provider', () => {
  const metaPath = (entryId: string) => `/silo/v1/entries/${entryId}/meta/${PEPPOL_MIGRATION_KEY_META}`;
  const put = (entryId: string, value: unknown, extra: Record<string, unknown> = {}) =>
    h.api('PUT', metaPath(entryId), { value, ...extra });
  const KEY = 'Ab12@#cdEF34';
  const stored = async (entryId: string) =>
    (
      await h.db.query<{ value: unknown; sealed: Uint8Array | null }>(
        'SELECT value, sealed FROM entry_meta WHERE entry_id = $1 AND key = $2',
        [entryId, PEPPOL_MIGRATION_KEY_META],
      )
    ).rows[0];
  const opened = (entryId: string, sealed: Uint8Array) =>
    JSON.parse(h.box.open(sealed, secretMetaContext(entryId, PEPPOL_MIGRATION_KEY_META)).toString('utf8'));

  it("names only the entry's own participants: any other id is refused, 400 naming it", async () => {
    const siren = makeSiren();
    const id = await newParty(h, siren);
    const other = makeSiren();
    const refused = async (value: Record<string, string>, ...named: string[]) => {
      const r = await put(id, value);
      expect([r.status, r.body.code, r.body.errors?.[0]?.path], JSON.stringify(r.body)).toEqual([
        400,
        'invalid-request',
        'body.value',
      ]);
      for (const n of named) expect(r.body.detail).toContain(n);
      return r.body.detail as string;
    };
    // A path, another company's SIREN (bare and with the scheme), an address the entry does not state.
    const detail = await refused(
      {
        '../../x': KEY,
        [`0225:${other}`]: KEY,
        [`iso6523-actorid-upis::0225:${other}_EU`]: KEY,
        [`0225:${siren}_EU`]: KEY,
        [`0225:${siren}`]: KEY,
      },
      '"../../x"',
      `"0225:${other}"`,
      `"iso6523-actorid-upis::0225:${other}_EU"`,
      `"0225:${siren}_EU"`,
    );
    expect(detail).not.toContain(`"0225:${siren}"`); // its own participant is not at fault
    expect(detail).toContain(`iso6523-actorid-upis::0225:${siren}`); // the ones it may name
    // A thousand ids: refused, the first ten named.
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`0225:${siren}_A${i}`, KEY]));
    expect(await refused(many, `"0225:${siren}_A0"`, 'and 990 more')).not.toContain(`_A10"`);
    // The same participant twice (ids ignore case and scheme).
    await refused({ [`0225:${siren}`]: KEY, [`ISO6523-ACTORID-UPIS::0225:${siren}`]: KEY }, 'twice');
    expect(await stored(id)).toBeUndefined(); // nothing refused was kept

    // Its own: the SIREN address (no addresses stated), with or without the scheme, in any case.
    expect((await put(id, { [`ISO6523-ACTORID-UPIS::0225:${siren}`]: KEY })).status).toBe(200);
    // An address it states (fr-invoicing-addresses) becomes one of its participants.
    const addresses = await h.api('PUT', `/silo/v1/entries/${id}/meta/fr-invoicing-addresses`, {
      value: { addresses: [{}, { suffix: 'EU' }] },
    });
    expect(addresses.status).toBe(200);
    const both = await put(id, { [`0225:${siren}`]: KEY, [`0225:${siren}_eu`]: 'Zz98#&yxWV!u' });
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    // One key for every participant names none.
    expect((await put(id, KEY)).status).toBe(200);
  });

  it('is kept sealed and shown masked everywhere; the registration migrates the participant with the real key', async () => {
    const siren = makeSiren();
    const id = await newParty(h, siren);
    const participant = `iso6523-actorid-upis::0225:${siren}`;
    // Another provider holds the participant at the SML, and prepared its migration to us with a key.
    const OLD_SMP = 'OLD-PROVIDER-SMP';
    h.sims.sml.seedParticipant(OLD_SMP, participant);
    const key = newMigrationKey();
    await createSmlClient({ url: h.sims.sml.url, smpId: OLD_SMP }).prepareToMigrate(participant, key);

    const ref = `mig-${crypto.randomUUID()}`;
    const r = await put(id, { [`0225:${siren}`]: key }, { ref });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const masked = { [`0225:${siren}`]: '********' };
    expect(r.body.value).toEqual(masked);
    // Masked wherever the meta shows: its row, the entry, the list, the lookup by ref.
    expect((await h.api('GET', metaPath(id))).body.value).toEqual(masked);
    const entry = (await h.api('GET', `/silo/v1/entries/${id}`)).body;
    expect(entry.meta.find((m: any) => m.key === PEPPOL_MIGRATION_KEY_META).value).toEqual(masked);
    expect(JSON.stringify(entry)).not.toContain(key);
    const list = (await h.api('GET', '/silo/v1/entries?limit=100')).body;
    expect(JSON.stringify(list)).not.toContain(key);
    expect((await h.api('GET', `/silo/v1/entries/meta/${PEPPOL_MIGRATION_KEY_META}/${ref}`)).body.value).toEqual(
      masked,
    );
    // Sealed at rest: the row holds the masked value and the key encrypted, bound to this entry.
    const row = (await stored(id))!;
    expect(row.value).toEqual(masked);
    expect(Buffer.from(row.sealed!).toString('latin1')).not.toContain(key);
    expect(opened(id, row.sealed!)).toEqual({ [`0225:${siren}`]: key });
    expect(() => h.box.open(row.sealed!, secretMetaContext(crypto.randomUUID(), PEPPOL_MIGRATION_KEY_META))).toThrow();

    // The registration's Peppol step opens it: SML Migrate with the key, the participant ours.
    const job = await register(h, id);
    expect(job.status, JSON.stringify(job)).toBe('OK');
    expect(h.sims.sml.ownerOf(participant)).toBe(h.config.SMP_ID);
    expect(h.sims.sml.pendingMigration(participant)).toBeUndefined(); // the key is spent
    const journal = JSON.stringify((await h.api('GET', `/transform/v1/jobs/${job.id}`)).body);
    expect(journal).not.toContain(key);
  });

  it('seals the keys an earlier version kept in clear (data migration), shown masked until then', async () => {
    const siren = makeSiren();
    const id = await newParty(h, siren);
    const key = newMigrationKey();
    // As an earlier version wrote it: in clear.
    await putMeta(h.db, id, PEPPOL_MIGRATION_KEY_META, { src: 'api', value: { [`0225:${siren}`]: key } });
    expect((await stored(id))!.sealed).toBeNull();
    expect((await h.api('GET', metaPath(id))).body.value).toEqual({ [`0225:${siren}`]: '********' });
    expect(await migrationKeyOf(h.db, h.box, id, `0225:${siren}`)).toBe(key); // read as it is meanwhile

    expect(await sealClearMigrationKeys(h.db, h.box)).toBe(1);
    const row = (await stored(id))!;
    expect(row.value).toEqual({ [`0225:${siren}`]: '********' });
    expect(opened(id, row.sealed!)).toEqual({ [`0225:${siren}`]: key });
    expect(await migrationKeyOf(h.db, h.box, id, `iso6523-actorid-upis::0225:${siren}`)).toBe(key);
    expect(await sealClearMigrationKeys(h.db, h.box)).toBe(0); // once
  });
});

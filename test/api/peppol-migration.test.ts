// apps/peppol/v1 over real HTTP: a party registered end to end leaves for another Peppol provider — we issue a
// migration key once (SML PrepareToMigrate), the new SMP migrates the participant with it, and the GET finds it out.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { newParty, register } from '../support/registration';
import { makeSiren } from '../../bin/stack/sample-parties';
import { createSmlClient } from '../../integrations/peppol/sml-client';
import { isValidMigrationKey } from '../../domain/party/migration-key';
import { entryParticipants, publishParticipant } from '../../platform/store/peppol-participants';

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

// Migration 1763841000000 keeps what a signed mandate says of its party. For a registered party whose mandate in
// force was signed before, it takes those facts from the party itself (nothing could change them while registered):
// a later rename must then still be seen as going beyond the mandate, and so sign a new one.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../platform/store/db';
import { insertEntry } from '../../../platform/store/entries';
import { createWorkspace } from '../../../platform/store/workspaces';
import { approvedMandate } from '../../../platform/store/mandates';
import { migrate } from '../../../platform/store/migrate';
import { factsChangedSince } from '../../../domain/party/mandate-facts';
import { freshDb } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';

const BEFORE_SIGNED_FACTS = 1763840900000;
const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(engines)('signed facts kept for mandates signed before them, on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: string;

  beforeAll(async () => {
    ({ db, drop } = await freshDb(engine, BEFORE_SIGNED_FACTS));
    ws = (await createWorkspace(db, 'acme')).id;
  });
  afterAll(() => drop?.());

  /**
   * A party with a signed mandate as the schema before the migration kept it (in `agreements`, the mandates' table
   * until migration 1763841300000), and the decision on it.
   */
  async function signedBefore(state: string, approved: boolean) {
    const siren = makeSiren();
    const data = party(siren);
    const entry = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data,
      siren,
    });
    const job = crypto.randomUUID();
    const decision = crypto.randomUUID();
    await db.query('INSERT INTO approval_decisions (id, entry_id, job_id, approved) VALUES ($1, $2, $3, $4)', [
      decision,
      entry.id,
      job,
      approved,
    ]);
    await db.query(
      `INSERT INTO agreements (entry_id, job_id, mandate_number, issued_on, signed_pdf, signed_via, signed_at,
         submitted_at, decision_id)
       VALUES ($1, $2, $3, current_date, '\\x25504446', 'typed', now(), now(), $4)`,
      [entry.id, job, `M-${siren}`, decision],
    );
    await db.query('UPDATE entries SET state = $2 WHERE id = $1', [entry.id, state]);
    return { id: entry.id, data };
  }

  it("takes a registered party's mandate facts from the party, and only those", async () => {
    const registered = await signedBefore('registered', true);
    const processing = await signedBefore('processing', true);
    const rejected = await signedBefore('registered', false);
    expect((await migrate(db)).some((m) => m.startsWith('1763841000000'))).toBe(true);

    const facts = (await approvedMandate(db, registered.id))?.facts;
    expect(factsChangedSince(facts, registered.data)).toEqual([]);
    // Each kind of fact the mandate states is told apart from the party's new words.
    const p = registered.data;
    expect(factsChangedSince(facts, { ...p, name: 'Boulangerie Renommée SAS' })).toEqual(['name']);
    expect(factsChangedSince(facts, { ...p, addresses: [{ ...p.addresses[0], code: '75003' }] })).toEqual([
      'addresses[0]',
    ]);
    const signer = p.people[0]!;
    expect(factsChangedSince(facts, { ...p, people: [{ ...signer, name: { ...signer.name, given: 'Léa' } }] })).toEqual(
      ['people[0].name'],
    );
    expect(factsChangedSince(facts, { ...p, people: [{ ...signer, role: 'Gérante' }] })).toEqual(['people[0].role']);

    // Not registered: the party may still change before its mandate is in force, so nothing is assumed.
    expect((await approvedMandate(db, processing.id))?.facts).toBeUndefined();
    // No mandate in force at all.
    expect(await approvedMandate(db, rejected.id)).toBeUndefined();
  });
});

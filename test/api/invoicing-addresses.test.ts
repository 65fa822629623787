// The invoicing addresses an integrator states (meta fr-invoicing-addresses): checked when written, every fault named;
// the mandate's part 4 follows them.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren, party, siretOf } from '../../bin/stack/sample-parties';
import { jobWhen } from '../support/jobs';
import { pdfText } from '../support/pdf-text';
import { ADDRESS_UPDATE_WORKFLOW_ID } from '../../domain/jobs/builtins';
import {
  approve,
  entryApi,
  linesInForce,
  register,
  signInApp,
  startRegistration,
  startUnregistration,
} from '../support/registration';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A SIRET whose check digit is wrong. */
const badSiret = (siret: string) => siret.slice(0, 13) + ((Number(siret[13]) + 1) % 10);

async function newEntry(siren = makeSiren()) {
  const id = crypto.randomUUID();
  expect((await h.api('PUT', `/silo/v1/entries/${id}`, { data: party(siren) })).status).toBe(200);
  return { id, siren };
}
const putAddresses = (id: string, value: unknown) =>
  h.api('PUT', `/silo/v1/entries/${id}/meta/fr-invoicing-addresses`, { value });

describe('fr-invoicing-addresses', () => {
  it('stores the addresses with their defaults filled in', async () => {
    const { id, siren } = await newEntry();
    const siret = siretOf(siren, '0001');
    const r = await putAddresses(id, {
      addresses: [{}, { siret }, { siret, routing_code: { id: 'ACHATS', label: 'Service achats' } }, { suffix: 'EU' }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.value).toEqual({
      entrust: 'all',
      addresses: [
        {},
        { siret },
        { siret, routing_code: { id: 'ACHATS', label: 'Service achats', nature: 'Privé', state: 'A' } },
        { suffix: 'EU' },
      ],
    });
  });

  it('refuses with a 400 naming each invalid address', async () => {
    const { id, siren } = await newEntry();
    const other = siretOf(makeSiren(), '0001');
    const r = await putAddresses(id, {
      entrust: 'some',
      addresses: [
        { siret: badSiret(siretOf(siren, '0009')) },
        { siret: other },
        { routing_code: { id: 'ACHATS', label: 'Achats' } },
        { siret: siretOf(siren, '0002'), suffix: 'X' },
        { suffix: siretOf(siren, '0003') },
        { suffix: 'a.b' },
        { siret: siretOf(siren, '0004'), routing_code: { id: 'R/1', label: '' } },
        { suffix: 'bad suffix!' },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid-request', detail: expect.stringMatching(/^invalid body\.value: /) });
    const at = (path: string) =>
      r.body.errors.filter((e: { path: string }) => e.path === path).map((e: { message: string }) => e.message);
    expect(at('body.value.entrust')).toHaveLength(1);
    expect(at('body.value.addresses.0.siret')).toEqual([expect.stringMatching(/not a valid SIRET/)]);
    expect(at('body.value.addresses.1.siret')).toEqual([`SIRET ${other} is not an establishment of SIREN ${siren}`]);
    expect(at('body.value.addresses.2.routing_code')).toEqual(['a routing code hangs on a SIRET: give the siret']);
    expect(at('body.value.addresses.3.suffix')).toEqual(['an address has a SIRET or a suffix, not both']);
    expect(at('body.value.addresses.4.suffix')).toEqual([
      'a suffix is never 14 digits, the shape of a SIRET: an establishment is given as siret',
    ]);
    expect(at('body.value.addresses.5.suffix')).toEqual([expect.stringMatching(/Peppol participant \(scheme 0225\)/)]);
    expect(at('body.value.addresses.6.routing_code.id')).toEqual([
      expect.stringMatching(/only letters, digits, - and _/),
    ]);
    expect(at('body.value.addresses.6.routing_code.label')).toHaveLength(1);
    // Outside the directory's characters: said once, not again for Peppol's narrower ones.
    expect(at('body.value.addresses.7.suffix')).toEqual([
      'a suffix holds only letters, digits and the characters the directory allows',
    ]);
    // An address twice, whatever its case (Peppol's participants ignore case).
    const twice = await putAddresses(id, { addresses: [{ suffix: 'EU' }, { suffix: 'eu' }] });
    expect([twice.status, twice.body.errors]).toEqual([
      400,
      [{ path: 'body.value.addresses.1', message: 'the same address as addresses[0] (Peppol ignores case)' }],
    ]);
    // Nothing was stored.
    expect((await h.api('GET', `/silo/v1/entries/${id}/meta/fr-invoicing-addresses`)).status).toBe(404);
  });

  it('checks the take-over matricule and the Peppol migration key when they are set', async () => {
    const { id, siren } = await newEntry();
    const put = (key: string, value: unknown) => h.api('PUT', `/silo/v1/entries/${id}/meta/${key}`, { value });
    for (const value of ['short', 'abcdefghABCD1234', 123, [], { '0225:552032534': 'x' }]) {
      const r = await put('peppol-migration-key', value);
      expect([r.status, r.body.code, r.body.errors?.[0]?.path], JSON.stringify(value)).toEqual([
        400,
        'invalid-request',
        'body.value',
      ]);
    }
    expect((await put('peppol-migration-key', 'Ab12@#cdEF34')).status).toBe(200);
    expect((await put('peppol-migration-key', { [`0225:${siren}`]: 'Ab12@#cdEF34' })).status).toBe(200);
    // Only the entry's own participants (test/api/peppol-migration.test.ts tests it further).
    expect((await put('peppol-migration-key', { '0225:552032534_EU': 'Ab12@#cdEF34' })).status).toBe(400);
    for (const value of ['42', 'PA42', { matricule: 'x' }, 42, ' 0042', '0042 '])
      expect((await put('fr-former-matricule', value)).status).toBe(400);
    // Neither the fictive platform nor ours is a platform a company leaves for us: said at once, not after signing.
    for (const [value, why] of [
      ['9998', 'the fictive platform 9998 needs no take-over consent'],
      [h.config.PA_MATRICULE, 'is our own matricule'],
    ]) {
      const r = await put('fr-former-matricule', value);
      expect([r.status, r.body.detail]).toEqual([400, expect.stringContaining(why!)]);
    }
    expect((await put('fr-former-matricule', '0042')).status).toBe(200);
    expect((await put('fr-former-matricule', { matricule: '0042' })).status).toBe(200);
    // A routing code's label holds no control or invisible characters (it is printed on the mandate).
    const label = await putAddresses(id, {
      addresses: [{ siret: siretOf(makeSiren(), '0001'), routing_code: { id: 'A', label: 'Achats\u202e' } }],
    });
    expect(label.body.errors.map((e: { path: string }) => e.path)).toContain(
      'body.value.addresses.0.routing_code.label',
    );
  });

  it('takes a start day from today to a year ahead', async () => {
    const { id } = await newEntry();
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    for (const start of [day(-1), day(400)]) {
      const r = await putAddresses(id, { start, addresses: [{}] });
      expect([r.status, r.body.code, r.body.errors?.[0]?.path]).toEqual([400, 'invalid-request', 'body.value.start']);
      expect(r.body.detail).toMatch(
        /^invalid body\.value: body\.value\.start: a day from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/,
      );
    }
    // Every fault named at once: a start out of range beside a wrong scope and a bad address.
    const both = await putAddresses(id, {
      entrust: 'some',
      start: day(400),
      addresses: [{ suffix: '12345678901234' }],
    });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'body.value.addresses.0.suffix',
      'body.value.entrust',
      'body.value.start',
    ]);
    const bad = await putAddresses(id, { start: '2026-02-30', addresses: [{}] });
    expect([bad.status, bad.body.errors?.[0]?.path]).toEqual([400, 'body.value.start']);
    const ok = await putAddresses(id, { start: day(30), addresses: [{}] });
    expect([ok.status, ok.body.value.start]).toEqual([200, day(30)]);
  });

  it('registers every address — its mandate listing them — then unregisters them all', async () => {
    const { id, siren } = await newEntry();
    const siret = siretOf(siren, '0001');
    const addresses = [
      {},
      { siret },
      { siret, routing_code: { id: 'ACHATS', label: 'Service achats' } },
      { suffix: 'EU' },
    ];
    expect((await putAddresses(id, { entrust: 'listed', addresses })).status).toBe(200);
    const ids = [siren, `${siren}_${siret}`, `${siren}_${siret}_ACHATS`, `${siren}_EU`];

    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    const mandate = await fetch(`${h.baseUrl}${entryApi(id)}/agreement`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    const text = pdfText(new Uint8Array(await mandate.arrayBuffer())).replace(/\s+/g, ' ');
    expect(text).toContain('Les adresses suivantes, et elles seules :');
    for (const address of ids) expect(text).toContain(`• ${address} — `);

    await signInApp(h, id);
    await approve(h, id);
    const job = await jobWhen(h, jobId, ['OK', 'ERR'], 60_000);
    expect(job.status, JSON.stringify(job.faults)).toBe('OK');
    expect(
      linesInForce(h, siren)
        .map((l) => [l.identifiantAdressage, l.matriculePlateforme])
        .sort(),
    ).toEqual(ids.map((a) => [a, h.config.PA_MATRICULE]).sort());
    const participants = ids.map((a) => `iso6523-actorid-upis::0225:${a.toLowerCase()}`);
    expect(
      h.sims.sml
        .participants(h.config.SMP_ID)
        .filter((p) => participants.includes(p))
        .sort(),
    ).toEqual([...participants].sort());
    expect(
      h.sims.directory
        .indexed()
        .filter((p) => participants.includes(p))
        .sort(),
    ).toEqual([...participants].sort());

    const unreg = await startUnregistration(h, id);
    expect((await jobWhen(h, unreg, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    expect(linesInForce(h, siren).map((l) => [l.identifiantAdressage, l.matriculePlateforme])).toEqual([
      [siren, '9998'],
    ]);
    expect(h.sims.sml.participants(h.config.SMP_ID).filter((p) => participants.includes(p))).toEqual([]);
  });
});

describe('updating the addresses of a registered party', () => {
  const update = (entryId: string) =>
    h.api('POST', '/transform/v1/jobs', { workflow_id: ADDRESS_UPDATE_WORKFLOW_ID, silo_entry_id: entryId });

  it('adds the new addresses and ends those no longer stated, with no new signature within the mandate', async () => {
    const { id, siren } = await newEntry();
    const siret = siretOf(siren, '0001');
    expect((await putAddresses(id, { addresses: [{}, { siret }] })).status).toBe(200);
    expect((await register(h, id)).status).toBe('OK');
    const participant = (a: string) => `iso6523-actorid-upis::0225:${a.toLowerCase()}`;
    const atSml = () =>
      h.sims.sml
        .participants(h.config.SMP_ID)
        .filter((p) => p.includes(`0225:${siren}`))
        .sort();
    expect(atSml()).toEqual([participant(siren), participant(`${siren}_${siret}`)].sort());

    // The mandate entrusts every address of the SIREN: the change needs no new signature.
    expect((await putAddresses(id, { addresses: [{}, { suffix: 'EU' }] })).status).toBe(200);
    const job = await update(id);
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    const done = await jobWhen(h, job.body.id, ['OK', 'ERR'], 60_000);
    expect(done.status, JSON.stringify(done.faults)).toBe('OK');
    expect(
      linesInForce(h, siren)
        .map((l) => [l.identifiantAdressage, l.matriculePlateforme])
        .sort(),
    ).toEqual([
      [siren, h.config.PA_MATRICULE],
      [`${siren}_EU`, h.config.PA_MATRICULE],
    ]);
    const ended = h.sims.annuaire.lines().find((l) => l.identifiantAdressage === `${siren}_${siret}`)!;
    expect(ended.dateFinEffet).toBe(new Date().toISOString().slice(0, 10));
    expect(atSml()).toEqual([participant(siren), participant(`${siren}_EU`)].sort());
    expect(h.sims.directory.indexed().filter((p) => p.includes(`0225:${siren}_`))).toEqual([
      participant(`${siren}_EU`),
    ]);
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.state).toBe('registered');
  });

  it('beyond the signed mandate: a new one is signed and approved first, the old one in force meanwhile', async () => {
    const { id, siren } = await newEntry();
    expect((await putAddresses(id, { entrust: 'listed', addresses: [{}] })).status).toBe(200);
    const early = await update(id);
    expect([early.status, early.body.code]).toEqual([409, 'not-registered']);
    expect(early.body.detail).toMatch(/has nothing to update/);
    expect((await register(h, id)).status).toBe('OK');
    const mandateNumber = async () =>
      (await h.db.query<{ n: string }>('SELECT mandate_number AS n FROM mandates WHERE entry_id = $1', [id])).rows[0]!
        .n;
    const first = await mandateNumber();

    expect((await putAddresses(id, { entrust: 'listed', addresses: [{}, { suffix: 'EU' }] })).status).toBe(200);
    const job = await update(id);
    const waiting = await jobWhen(h, job.body.id, ['WAIT', 'OK', 'ERR'], 30_000);
    expect([waiting.status, waiting.waiting_for]).toEqual(['WAIT', 'signer']);
    // The job says why a new signature is needed.
    const renew = waiting.intents.find((i: { provider: string }) => i.provider === 'gov-fr.agreement.renew');
    expect(renew.events.map((e: { status: string; message?: string }) => [e.status, e.message])).toEqual([
      ['RUN', undefined],
      ['OK', `new mandate to sign: ${siren}_EU beyond mandate ${first}`],
    ]);
    // The new mandate lists both addresses; the party is still registered, its lines untouched.
    const mandate = await fetch(`${h.baseUrl}${entryApi(id)}/agreement`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    const text = pdfText(new Uint8Array(await mandate.arrayBuffer())).replace(/\s+/g, ' ');
    expect(text).toContain(`• ${siren}_EU — `);
    expect(await mandateNumber()).not.toBe(first);
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.state).toBe('registered');
    expect(linesInForce(h, siren).map((l) => l.identifiantAdressage)).toEqual([siren]);

    await signInApp(h, id);
    await approve(h, id);
    const done = await jobWhen(h, job.body.id, ['OK', 'ERR'], 60_000);
    expect(done.status, JSON.stringify(done.faults)).toBe('OK');
    expect(
      linesInForce(h, siren)
        .map((l) => l.identifiantAdressage)
        .sort(),
    ).toEqual([siren, `${siren}_EU`].sort());
    expect(h.sims.sml.participants(h.config.SMP_ID)).toContain(`iso6523-actorid-upis::0225:${siren.toLowerCase()}_eu`);
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.state).toBe('registered');
    // The superseded mandate is kept as evidence.
    const kept = await h.db.query(
      'SELECT mandate_number, signed_pdf IS NOT NULL AS signed FROM superseded_mandates WHERE entry_id = $1',
      [id],
    );
    expect(kept.rows).toEqual([{ mandate_number: first, signed: true }]);
  });

  it('cancelled while the new mandate waits for its signer: the party stays registered under the old one', async () => {
    const { id, siren } = await newEntry();
    expect((await putAddresses(id, { entrust: 'listed', addresses: [{}] })).status).toBe(200);
    expect((await register(h, id)).status).toBe('OK');
    expect((await putAddresses(id, { entrust: 'listed', addresses: [{}, { suffix: 'EU' }] })).status).toBe(200);
    const inForce = (
      await h.db.query<{ n: string }>('SELECT mandate_number AS n FROM mandates WHERE entry_id = $1', [id])
    ).rows[0]!.n;
    const job = await update(id);
    expect((await jobWhen(h, job.body.id, ['WAIT', 'ERR'], 30_000)).status).toBe('WAIT');
    // The operator sees what the new mandate replaces, and what it adds.
    const review = await h.api('GET', `/apps/gov-fr/v1/review/submissions/${id}`);
    expect(review.body.replaces).toEqual({ mandate_number: inForce, new_addresses: [`${siren}_EU`], changed: [] });
    const ref = (await h.api('GET', `/silo/v1/entries/${id}/meta/approval-link`)).body.ref;
    const cancel = await h.api('POST', `/transform/v1/jobs/${job.body.id}/cancel`, { reason: 'wrong address' });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body.status).toBe('CANCEL');
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.state).toBe('registered');
    // The signer's link says the update was cancelled; the mandate in force is the old one, served as before.
    const link = await fetch(`${h.baseUrl}/reg/${ref}/api/state`);
    expect([link.status, ((await link.json()) as { code: string }).code]).toEqual([410, 'link-cancelled']);
    const mandate = await fetch(`${h.baseUrl}${entryApi(id)}/agreement`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(mandate.status).toBe(200);
    expect(mandate.headers.get('content-disposition')).toContain(`mandat-${inForce}.pdf`);

    // Back within the old mandate's scope: the update runs with no signature, under the old mandate.
    expect((await putAddresses(id, { entrust: 'listed', addresses: [{}] })).status).toBe(200);
    const again = await update(id);
    const done = await jobWhen(h, again.body.id, ['OK', 'ERR'], 60_000);
    expect(done.status, JSON.stringify(done.faults)).toBe('OK');
    const wait = done.intents.find((i: { provider: string }) => i.provider === 'gov-fr.agreement.wait.approval');
    expect(wait.events.map((e: { status: string; message?: string }) => [e.status, e.message])).toEqual([
      ['RUN', undefined],
      ['OK', expect.stringMatching(/^not needed: every address is within mandate /)],
    ]);
    expect(linesInForce(h, siren).map((l) => l.identifiantAdressage)).toEqual([siren]);
  });
});

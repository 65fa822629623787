// PATCH /silo/v1/entries/{id}: correcting a party — the three formats, validation, and the mandate's lifecycle
// (issued again before signature, locked after), with the registration running on the real dev server.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractViolation } from '../support/contract';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { startHarness, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { pdfText } from '../support/pdf-text';
import { entryApi, startRegistration } from '../support/registration';
import { inkSigned } from '../support/signed-pdf';
import { b64, png } from '../../bin/stack/sample-images';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A PATCH as a client sends it: `type` is the request's own media type. */
async function patch(id: string, body: unknown, type = 'application/json', key = h.apiKey) {
  const res = await fetch(`${h.baseUrl}/silo/v1/entries/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${key}`, 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  const broken = contractViolation(
    'PATCH',
    `/silo/v1/entries/${id}`,
    res.status,
    res.headers.get('content-type'),
    parsed,
  );
  if (broken) throw new Error(`contract: ${broken}`);
  return { status: res.status, body: parsed };
}

async function newEntry(data: unknown = party()) {
  const id = crypto.randomUUID();
  expect((await h.api('PUT', `/silo/v1/entries/${id}`, { data })).status).toBe(200);
  return id;
}

const mandatePdf = async (id: string) => {
  const res = await fetch(`${h.baseUrl}${entryApi(id)}/agreement`, {
    headers: { authorization: `Bearer ${h.apiKey}` },
  });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
};

describe('the three formats', () => {
  it('replaces the whole document (content_type application/json, the default)', async () => {
    const siren = makeSiren();
    const id = await newEntry(party(siren));
    const r = await patch(id, { data: party(siren, { name: 'Boulangerie Corrigée SAS' }) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.name).toBe('Boulangerie Corrigée SAS');
    expect(r.body.mandate_number).toBeUndefined(); // no mandate was issued
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.data.name).toBe('Boulangerie Corrigée SAS');
  });

  it('applies a merge patch, in the body or as the request type; null removes a field', async () => {
    const id = await newEntry();
    const wrapped = await patch(id, {
      content_type: 'application/merge-patch+json',
      data: { name: 'Nom A', emails: null },
    });
    expect(wrapped.status, JSON.stringify(wrapped.body)).toBe(200);
    expect(wrapped.body.data.name).toBe('Nom A');
    expect(wrapped.body.data.emails).toBeUndefined();
    const own = await patch(
      id,
      { people: [{ name: { given: 'Jean', surname: 'Martin' }, identities: [{ code: 'AB123456' }] }] },
      'application/merge-patch+json',
    );
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.data.people[0].name).toEqual({ given: 'Jean', surname: 'Martin' });
    expect(own.body.data.name).toBe('Nom A');
  });

  it('applies a JSON patch, in the body or as the request type; all operations or none', async () => {
    const id = await newEntry();
    const ops = [
      { op: 'test', path: '/name', value: 'Boulangerie Exemple SAS' },
      { op: 'replace', path: '/addresses/0/locality', value: 'Lyon' },
    ];
    const wrapped = await patch(id, { content_type: 'application/json-patch+json', data: ops });
    expect(wrapped.status, JSON.stringify(wrapped.body)).toBe(200);
    expect(wrapped.body.data.addresses[0].locality).toBe('Lyon');
    const own = await patch(
      id,
      [{ op: 'add', path: '/people/0/role', value: 'Gérant' }],
      'application/json-patch+json',
    );
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.data.people[0].role).toBe('Gérant');

    // A failed test is the client's precondition: 409, and nothing changed (not even the operations before it).
    const stale = await patch(
      id,
      [
        { op: 'replace', path: '/name', value: 'X' },
        { op: 'test', path: '/name', value: 'Y' },
      ],
      'application/json-patch+json',
    );
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatch(/operation 1 \(test \/name\) failed/);
    const missing = await patch(id, [{ op: 'remove', path: '/websites/0' }], 'application/json-patch+json');
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toMatch(/operation 0 \(remove \/websites\/0\) cannot apply/);
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.data.name).toBe('Boulangerie Exemple SAS');
  });

  it('validates the result like a creation, naming the field', async () => {
    const id = await newEntry();
    const r = await patch(
      id,
      { name: '', tax_id: { country: 'FR', code: 'FR00123456789' } },
      'application/merge-patch+json',
    );
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.path)).toEqual(expect.arrayContaining(['data.tax_id.code']));
    const removeSiren = await patch(id, [{ op: 'remove', path: '/identities/0' }], 'application/json-patch+json');
    expect(removeSiren.status).toBe(400);
    expect(removeSiren.body.detail).toMatch(/exactly one identity of type SIREN/);
  });

  it('refuses what is not one of the formats, with the reason', async () => {
    const id = await newEntry();
    expect((await patch(id, 'name=x', 'text/plain')).status).toBe(415);
    const badType = await patch(id, { content_type: 'application/xml', data: {} });
    expect(badType.status).toBe(400);
    expect(badType.body.detail).toMatch(/content_type/);
    expect((await patch(id, { content_type: 'application/json-patch+json', data: { op: 'add' } })).body.detail).toMatch(
      /array of operations/,
    );
    expect((await patch(id, [1, 2], 'application/merge-patch+json')).body.detail).toMatch(/merge patch.*JSON object/);
    expect((await patch(id, {})).body.detail).toMatch(/send data/);
    expect((await patch(id, { data: party(), sign: true })).status).toBe(400);
    const proto = await patch(id, '{"__proto__": {"name": "x"}, "name": "y"}', 'application/merge-patch+json');
    expect(proto.status).toBe(400);
    expect(proto.body.detail).toMatch(/__proto__/);
    expect((await patch(crypto.randomUUID(), { data: party() })).status).toBe(404);
    expect((await patch(id, { data: party() }, 'application/json', await h.newKey())).status).toBe(404); // another workspace
  });

  it('moves the entry to another folder', async () => {
    const id = await newEntry();
    const r = await patch(id, { folder: 'corrections' });
    expect(r.status).toBe(200);
    expect(r.body.folder).toBe('corrections');
  });
});

describe('allow_invalid', () => {
  it('keeps a draft with its faults; no registration starts until it is fixed', async () => {
    const siren = makeSiren();
    const id = await newEntry(party(siren));
    const draft = await patch(id, {
      content_type: 'application/merge-patch+json',
      data: { tax_id: { country: 'FR', code: 'FR99' } },
      allow_invalid: true,
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expect(draft.body.data.tax_id.code).toBe('FR99');
    expect(draft.body.faults).toEqual([
      expect.objectContaining({ code: 'invalid-data', message: expect.stringMatching(/^data\.tax_id\.code: /) }),
    ]);
    const refused = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: await registrationWorkflowId(),
      silo_entry_id: id,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/invalid party.*data\.tax_id\.code.*PATCH/);

    const fixed = await patch(id, { tax_id: party(siren).tax_id }, 'application/merge-patch+json');
    expect(fixed.status).toBe(200);
    expect(fixed.body.faults).toEqual([]);
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
  });
});

const registrationWorkflowId = async () => (await import('../../domain/jobs/builtins')).REGISTRATION_WORKFLOW_ID;

describe('against the mandate', () => {
  it('before signature, issues the mandate again under the next number; an upload of the old one is refused naming the new', async () => {
    const siren = makeSiren();
    const id = await newEntry(party(siren));
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    const first = await mandatePdf(id);
    const firstNumber = pdfText(first).match(/\d{9}_\w+_\d{8}_01/)![0];

    // Not on the mandate: no new number.
    const email = await patch(id, { emails: [{ addr: 'factures@exemple.fr' }] }, 'application/merge-patch+json');
    expect(email.status).toBe(200);
    expect(email.body.mandate_number).toBeUndefined();

    const renamed = await patch(id, { name: 'Boulangerie Renommée SAS' }, 'application/merge-patch+json');
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const secondNumber = firstNumber.replace(/_01$/, '_02');
    expect(renamed.body.mandate_number).toBe(secondNumber);
    const second = pdfText(await mandatePdf(id));
    expect(second).toContain(secondNumber);
    expect(second).toContain('Boulangerie Renommée SAS');

    // The signer signed the mandate downloaded before the change.
    const old = await h.api('POST', `${entryApi(id)}/agreement`, { data: b64(await inkSigned(first)) });
    expect(old.status).toBe(422);
    expect(old.body.code).toBe('superseded-mandate');
    expect(old.body.detail).toContain(`is mandate ${firstNumber}, which was replaced by mandate ${secondNumber}`);

    // The party.updated event says so.
    const events = (await h.api('GET', '/events/v1/events?limit=100')).body.list ?? [];
    expect(events.find((e: any) => e.kind === 'party.updated' && e.data?.mandate_number === secondNumber)).toBeTruthy();
  });

  it('after signature, refuses what would alter the signed mandate (409 with the way out), allows the rest', async () => {
    const siren = makeSiren();
    const id = await newEntry(party(siren));
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    expect((await h.api('POST', `${entryApi(id)}/identity`, { view: 'page', data: b64(png()) })).status).toBe(204);
    expect((await h.api('POST', `${entryApi(id)}/sign`, {})).status).toBe(204);

    const renamed = await patch(
      id,
      {
        name: 'Autre Nom SAS',
        addresses: [{ street: '1 rue Neuve', locality: 'Lille', code: '59000', country: 'FR' }],
      },
      'application/merge-patch+json',
    );
    expect(renamed.status).toBe(409);
    expect(renamed.body.detail).toMatch(/mandate \S+_01 is signed: it states the name, addresses\[0\]/);
    expect(renamed.body.detail).toContain(`/transform/v1/jobs/${jobId}/cancel`);
    const signerId = await patch(
      id,
      [{ op: 'replace', path: '/people/0/identities/0/code', value: 'ZZ999999' }],
      'application/json-patch+json',
    );
    expect(signerId.status).toBe(409);
    const telephones = await patch(id, { telephones: [{ num: '+33 1 23 45 67 89' }] }, 'application/merge-patch+json');
    expect(telephones.status).toBe(200);
    expect(telephones.body.data.name).toBe('Boulangerie Exemple SAS');
  });

  it('never changes the SIREN once a registration has started', async () => {
    const id = await newEntry();
    const other = makeSiren();
    // Before any registration: a wrong SIREN can be corrected.
    const corrected = await patch(id, { data: party(other) });
    expect(corrected.status).toBe(200);
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    const r = await patch(id, { data: party(makeSiren()) });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(new RegExp(`SIREN of entry ${id} \\(${other}\\) cannot change`));
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.data.identities[0].code).toBe(other);
  });

  it('refuses a signature of the mandate the signer read when it has been issued again since', async () => {
    const id = await newEntry(party(makeSiren()));
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    const read = pdfText(await mandatePdf(id)).match(/\d{9}_\w+_\d{8}_01/)![0];
    expect((await patch(id, { name: 'Autre Raison Sociale SAS' }, 'application/merge-patch+json')).status).toBe(200);
    const stale = await h.api('POST', `${entryApi(id)}/sign`, { mandate_number: read });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      code: 'mandate-replaced',
      detail: expect.stringContaining(`mandate ${read} was replaced by mandate ${read.replace(/_01$/, '_02')}`),
    });
    expect((await h.api('POST', `${entryApi(id)}/sign`, { mandate_number: read.replace(/_01$/, '_02') })).status).toBe(
      204,
    );
  });

  it('refuses a signature naming no mandate when the mandate was issued again since it was last downloaded (409 mandate-changed), in the wizard too', async () => {
    const id = await newEntry(party(makeSiren()));
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    const read = pdfText(await mandatePdf(id)).match(/\d{9}_\w+_\d{8}_01/)![0];
    const renamed = await patch(id, { name: 'Raison Changée SAS' }, 'application/merge-patch+json');
    const next = renamed.body.mandate_number;
    expect(next).toBe(read.replace(/_01$/, '_02'));
    // The signer read mandate _01; without a number, signing now would sign _02 unread.
    for (const body of [{}, undefined]) {
      const r = await h.api('POST', `${entryApi(id)}/sign`, body);
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body).toMatchObject({
        code: 'mandate-changed',
        detail: expect.stringContaining(`mandate ${read}, last downloaded, was replaced by mandate ${next}`),
      });
    }
    // The wizard's sign route follows the same rule.
    const ref = (await h.api('GET', `/silo/v1/entries/${id}`)).body.meta.find(
      (m: any) => m.key === 'approval-link',
    ).ref;
    const wizard = await h.api('POST', `/reg/${ref}/api/sign`, {}, null);
    expect([wizard.status, wizard.body.code]).toEqual([409, 'mandate-changed']);
    const unsigned = await h.db.query('SELECT signed_pdf IS NULL AS unsigned FROM mandates WHERE entry_id = $1', [id]);
    expect(unsigned.rows).toEqual([{ unsigned: true }]);
    // Downloaded again (here through the wizard), it is signed.
    expect((await fetch(`${h.baseUrl}/reg/${ref}/api/agreement`)).status).toBe(200);
    expect((await h.api('POST', `${entryApi(id)}/sign`, {})).status).toBe(204);
    const { rows } = await h.db.query(
      'SELECT mandate_number, signed_pdf IS NOT NULL AS signed FROM mandates WHERE entry_id = $1',
      [id],
    );
    expect(rows[0]).toEqual({ mandate_number: next, signed: true });
  });

  it('signs without a number a mandate never downloaded, or downloaded as it is', async () => {
    const id = await newEntry(party(makeSiren()));
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    expect((await patch(id, { name: 'Jamais Lue SAS' }, 'application/merge-patch+json')).status).toBe(200);
    expect((await h.api('POST', `${entryApi(id)}/sign`, {})).status).toBe(204);

    const other = await newEntry(party(makeSiren()));
    await jobWhen(h, await startRegistration(h, other), ['WAIT']);
    await mandatePdf(other);
    expect((await h.api('POST', `${entryApi(other)}/sign`, {})).status).toBe(204);
  });

  it('a change of signer drops the identity document shown by the previous one', async () => {
    const id = await newEntry(party(makeSiren()));
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    expect((await h.api('POST', `${entryApi(id)}/identity`, { view: 'page', data: b64(png()) })).status).toBe(204);
    const other = await patch(
      id,
      [{ op: 'replace', path: '/people/0/name', value: { given: 'Paul', surname: 'Durand' } }],
      'application/json-patch+json',
    );
    expect(other.status).toBe(200);
    const confirm = await h.api('POST', `${entryApi(id)}/confirm`);
    expect(confirm.status).toBe(422);
    expect(confirm.body.code).toBe('incomplete');
  });
});

describe('what a correction reports', () => {
  it('a party.updated event names the fields changed; a change of nothing writes nothing', async () => {
    const id = await newEntry();
    const before = (await h.api('GET', `/silo/v1/entries/${id}`)).body.updated_at;
    const same = await patch(id, { name: 'Boulangerie Exemple SAS' }, 'application/merge-patch+json');
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(before);
    expect(
      (
        await patch(
          id,
          { emails: [{ addr: 'a@exemple.fr' }], telephones: [{ num: '+33 1 00 00 00 00' }] },
          'application/merge-patch+json',
        )
      ).status,
    ).toBe(200);
    const events = (await h.api('GET', `/events/v1/events?entry_id=${id}`)).body.list;
    expect(events.map((e: any) => e.data.changed)).toEqual([['emails', 'telephones']]);
  });

  it("the mandate needs the signer's role: 422 naming it, until a PATCH adds it", async () => {
    const noRole = party(makeSiren());
    delete (noRole.people[0] as { role?: string }).role;
    const id = await newEntry(noRole);
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    const refused = await h.api('GET', `${entryApi(id)}/agreement`);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'signer-missing', detail: expect.stringContaining('people[0].role') });
    expect(
      (await patch(id, [{ op: 'add', path: '/people/0/role', value: 'Gérant' }], 'application/json-patch+json')).status,
    ).toBe(200);
    expect((await h.api('GET', `${entryApi(id)}/agreement`)).status).toBe(200);
  });
});

describe('what an attacker sends', () => {
  it('a JSON patch that doubles the document stops at the size limit, at once, and the API keeps answering', async () => {
    const id = await newEntry();
    const doubling = Array.from({ length: 30 }, () => ({ op: 'copy', from: '/addresses', path: '/addresses/-' }));
    const started = Date.now();
    const [r, ping] = await Promise.all([
      patch(id, doubling, 'application/json-patch+json'),
      h.api('GET', '/utils/v1/ping', undefined, null),
    ]);
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/after operation \d+ \(copy \/addresses\/-\)/);
    expect(ping.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(
      (
        await patch(
          id,
          Array.from({ length: 101 }, () => ({ op: 'test', path: '/name', value: 'x' })),
          'application/json-patch+json',
        )
      ).status,
    ).toBe(400);
    const ext = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect((await patch(id, { ext }, 'application/merge-patch+json')).status).toBe(400);
  });

  it('names objects inherit, as keys or as paths, are refused (400), never a 500', async () => {
    const id = await newEntry();
    for (const [body, type] of [
      [{ hasOwnProperty: 1, alias: null }, 'application/merge-patch+json'],
      [{ tax_id: { toString: 1 } }, 'application/merge-patch+json'],
      [[{ op: 'add', path: '/__proto__/x', value: 1 }], 'application/json-patch+json'],
      [[{ op: 'replace', path: '/constructor', value: { a: 1 } }], 'application/json-patch+json'],
      [[{ op: 'copy', from: '/__proto__', path: '/alias' }], 'application/json-patch+json'],
    ] as const) {
      const r = await patch(id, body, type);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.detail).toMatch(/is not a field of a party/);
    }
    const intoItself = await patch(
      id,
      [{ op: 'move', from: '/people', path: '/people/0/x' }],
      'application/json-patch+json',
    );
    expect(intoItself.status).toBe(422);
    expect(intoItself.body.code).toBe('patch-unappliable');
  });

  it('no invalid draft while a registration runs', async () => {
    const id = await newEntry(party(makeSiren()));
    const jobId = await startRegistration(h, id);
    await jobWhen(h, jobId, ['WAIT']);
    const r = await patch(id, {
      content_type: 'application/merge-patch+json',
      data: { tax_id: { country: 'FR', code: 'FR00' } },
      allow_invalid: true,
    });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'draft-refused', detail: expect.stringContaining('data.tax_id.code') });
  });
});

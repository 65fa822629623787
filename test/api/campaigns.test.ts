// A campaign from a file, as an integrator sends it: the file streamed, each row checked, the dry run judging every
// row against the simulators (the Annuaire, the SML's DNS) on Temporal, the counts, the rows, the CSV report, the
// pre-flight of one SIREN; and the refusals of a file that cannot be read, naming the line or the column.
// Over 300 lines: one harness for the whole path of a campaign (upload, dry run, start, end), started once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSiren } from '../../bin/stack/sample-parties';
import { createWorkspace } from '../../platform/store/workspaces';
import { eventually, log, startHarness, type WorkerHarness } from '../support/harness';
import { createEntry } from '../support/jobs';
import { startRegistration } from '../support/registration';
import { Client, Connection } from '@temporalio/client';
import { announceCampaigns } from '../../domain/campaigns/progress';
import { cancelCampaignJobs } from '../../domain/campaigns/cancel-jobs';

let h: WorkerHarness;
beforeAll(async () => {
  h = await startHarness({ env: { CAMPAIGN_MAX_ROWS: '50', CAMPAIGN_ANNUAIRE_RPS: '200', CAMPAIGN_DNS_RPS: '500' } });
}, 60_000);
afterAll(() => h?.close());

const HEADER = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email;former_platform';
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const OTHER_SMP = 'https://smp.other-provider.example';

async function upload(body: string | Buffer, type = 'text/csv; charset=utf-8', query = '', key = h.apiKey) {
  const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': type },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

const row = (siren: string, name = `Société ${siren}`, former = '') =>
  `${siren};${name};Élodie;Martin;Présidente;elodie.${siren}@example.fr;${former}`;

describe('a campaign from a file', () => {
  const s = {
    fresh: makeSiren(),
    held: makeSiren(),
    migrating: makeSiren(),
    ours: makeSiren(),
    ceased: makeSiren(),
    unknown: makeSiren(),
    chosenOther: makeSiren(),
  };
  let campaignId: string;

  beforeAll(async () => {
    const a = h.sims.annuaire;
    // The PPF ends the lines of a company that ceased today.
    const cessation = await fetch(`${new URL(a.url).origin}/_simulator/companies/${s.ceased}/cessation`, {
      method: 'POST',
    });
    expect(cessation.status).toBe(200);
    for (const siren of [s.fresh, s.migrating])
      a.seedLine({ siren, matriculePlateforme: '9998', dateDebutEffet: '2025-09-01' });
    a.seedLine({ siren: s.held, matriculePlateforme: '0042', dateDebutEffet: '2026-09-01' });
    a.seedLine({ siren: s.ours, matriculePlateforme: h.config.PA_MATRICULE, dateDebutEffet: '2026-09-01' });
    a.seedCompany({ siren: s.unknown, raisonSociale: '', known: false });
    a.seedLine({
      siren: s.chosenOther,
      matriculePlateforme: '9998',
      dateDebutEffet: '2025-09-01',
      dateFinEffet: tomorrow,
    });
    a.seedLine({ siren: s.chosenOther, matriculePlateforme: '0077', dateDebutEffet: tomorrow });
    h.sims.sml.setSmpUrl('OTHER-SMP', OTHER_SMP);
    h.sims.sml.seedParticipant('OTHER-SMP', `iso6523-actorid-upis::0225:${s.migrating}`);
  });

  it('keeps every row with its line, judges each, and counts them by verdict', async () => {
    const file = [
      `\uFEFF${HEADER}`,
      row(s.fresh, '=HYPERLINK("http://evil.example")'),
      row(s.held),
      row(s.migrating),
      row(s.ours),
      row(s.ceased),
      row(s.unknown),
      row(s.chosenOther),
      row(s.fresh, 'Encore elle'),
      row('123456789'),
      `${s.fresh};;Élodie;Martin;Présidente;pas-un-email;9998`,
    ].join('\r\n');
    const created = await upload(file);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'checking', rows: 10, file: { format: 'csv' } });
    campaignId = created.body.id;
    const done = await eventually(async () => {
      const c = (await h.api('GET', `/campaigns/v1/campaigns/${campaignId}`)).body;
      return c.status === 'checked' ? c : undefined;
    }, 30_000);
    expect(done.counts).toEqual({
      unchecked: 0,
      new: 1,
      takeover: 1,
      migrate: 1,
      'already-ours': 1,
      blocked: 5,
      duplicate: 1,
    });
    expect(done.dry_run.rows_judged).toBe(8);
    // Announced to the workspace's webhooks, with the counts.
    const events = (await h.api('GET', '/events/v1/events?kind=campaign.checked')).body.list;
    expect(events.find((e: { data: { campaign_id: string } }) => e.data.campaign_id === campaignId)).toMatchObject({
      kind: 'campaign.checked',
      entry_id: null,
      data: { status: 'checked', counts: { takeover: 1, blocked: 5 } },
    });
    expect(done.dry_run.requests.annuaire).toBeGreaterThanOrEqual(6);

    const rows = (await h.api('GET', `/campaigns/v1/campaigns/${campaignId}/rows?limit=100`)).body.list;
    const at = (line: number) => rows.find((r: { line: number }) => r.line === line);
    expect(at(3)).toMatchObject({ siren: s.held, verdict: 'takeover', details: { former_platform: '0042' } });
    expect(at(4)).toMatchObject({
      verdict: 'migrate',
      details: { migrations: [{ participant: `0225:${s.migrating}`, smp: OTHER_SMP }] },
    });
    expect(at(6).reasons).toEqual([`SIREN ${s.ceased} has ceased (the Annuaire's state C)`]);
    expect(at(7).reasons[0]).toMatch(/unknown to the Annuaire/);
    expect(at(8).reasons[0]).toMatch(/^platform 0077 receives for .* from .* \(a line to come\)/);
    expect(at(9)).toMatchObject({
      verdict: 'duplicate',
      reasons: [`SIREN ${s.fresh} is on line 2 of this file already`],
    });
    expect(at(10)).toEqual({
      line: 10,
      name: 'Société 123456789', // a row at fault still names its company
      verdict: 'blocked',
      faults: [{ column: 'siren', message: '123456789 is not a SIREN (9 digits, Luhn)' }],
    });
    expect(
      at(11)
        .faults.map((f: { column: string }) => f.column)
        .sort(),
    ).toEqual(['contact_email', 'former_platform', 'name']);
    const blocked = (await h.api('GET', `/campaigns/v1/campaigns/${campaignId}/rows?verdict=blocked&limit=2`)).body;
    expect([blocked.list.map((r: { line: number }) => r.line), blocked.next_after]).toEqual([[6, 7], 7]);
    // Nothing was written anywhere but our store.
    expect(h.sims.annuaire.lines().filter((l) => l.matriculePlateforme === h.config.PA_MATRICULE)).toHaveLength(1);
  }, 60_000);

  it('exports the report as CSV, formulas neutralised', async () => {
    const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns/${campaignId}/report.csv`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe('line,siren,name,verdict,reasons,former_platform,migration_participants,migration_smps');
    expect(lines).toHaveLength(11);
    expect(lines[1]).toMatch(new RegExp(`^2,${s.fresh},"'=HYPERLINK\\(""http://evil.example""\\)",new,`));
    expect(lines[3]).toContain(`,migrate,`);
    expect(lines[3]).toContain(OTHER_SMP);

    // For French Excel: semicolons, and the byte-order mark that makes it read UTF-8.
    const fr = await fetch(`${h.baseUrl}/campaigns/v1/campaigns/${campaignId}/report.csv?dialect=excel-fr`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    const bytes = Buffer.from(await fr.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const frLines = bytes.subarray(3).toString('utf8').trim().split('\r\n');
    expect(frLines[0]).toBe('line;siren;name;verdict;reasons;former_platform;migration_participants;migration_smps');
    expect(frLines[2]).toMatch(new RegExp(`^3;${s.held};Société ${s.held};takeover;`));
    const odd = await h.api('GET', `/campaigns/v1/campaigns/${campaignId}/report.csv?dialect=tsv`);
    expect([odd.status, odd.body.detail]).toEqual([400, expect.stringMatching(/dialect/)]);
  });

  it('answers the same campaign for the same file; a key of another file is a conflict', async () => {
    const file = `${HEADER}\n${row(makeSiren())}\n`;
    const first = await upload(file, 'text/csv', '?key=spring-wave');
    const again = await upload(file, 'text/csv', '?key=spring-wave');
    expect([first.status, again.status, again.body.id]).toEqual([201, 200, first.body.id]);
    const other = await upload(`${HEADER}\n${row(makeSiren())}\n`, 'text/csv', '?key=spring-wave');
    expect([other.status, other.body.code]).toEqual([409, 'campaign-key-taken']);
    const byHash = [await upload(file), await upload(file)];
    expect(byHash.map((r) => r.status)).toEqual([201, 200]);
    expect(byHash[0]!.body.key).toBe(`sha256:${byHash[0]!.body.file.sha256}`);
  });

  it('a SIREN in another open campaign is a duplicate; the pre-flight says so too', async () => {
    const other = await upload(`${HEADER}\n${row(s.held)}\n`);
    const done = await eventually(async () => {
      const c = (await h.api('GET', `/campaigns/v1/campaigns/${other.body.id}`)).body;
      return c.status === 'checked' ? c : undefined;
    }, 30_000);
    expect(done.counts).toMatchObject({ duplicate: 1 });
    const pre = await h.api('GET', `/campaigns/v1/preflight/${s.held}`);
    expect(pre.body).toEqual({
      siren: s.held,
      verdict: 'duplicate',
      reasons: [`SIREN ${s.held} is on line 3 of campaign ${campaignId}, open`],
      otherwise: expect.objectContaining({ verdict: 'takeover', details: { former_platform: '0042' } }),
    });
    const fresh = makeSiren();
    h.sims.annuaire.seedLine({ siren: fresh, matriculePlateforme: '0042', dateDebutEffet: '2026-01-01' });
    expect((await h.api('GET', `/campaigns/v1/preflight/${fresh}`)).body).toMatchObject({
      verdict: 'takeover',
      details: { former_platform: '0042' },
    });
    expect((await h.api('GET', '/campaigns/v1/preflight/123456789')).status).toBe(400);
  });

  it('holds no SIREN for a row it will not register; a cancelled campaign’s file sent again is judged anew', async () => {
    const unknown = makeSiren();
    h.sims.annuaire.seedCompany({ siren: unknown, raisonSociale: '', known: false });
    const fresh = makeSiren();
    h.sims.annuaire.seedLine({ siren: fresh, matriculePlateforme: '9998', dateDebutEffet: '2025-09-01' });
    const file = [HEADER, row(unknown), row(fresh)].join('\n');
    const checked = async (id: string) =>
      eventually(async () => {
        const c = (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body;
        return c.status === 'checked' ? c : undefined;
      }, 30_000);
    const first = (await upload(file)).body.id;
    expect((await checked(first)).counts).toMatchObject({ blocked: 1, new: 1 });
    expect((await h.api('GET', `/campaigns/v1/preflight/${unknown}`)).body.verdict).toBe('blocked');
    expect((await h.api('GET', `/campaigns/v1/preflight/${fresh}`)).body.verdict).toBe('duplicate');

    // Corrected the way the README says: cancel it, send the file again.
    expect((await h.api('POST', `/campaigns/v1/campaigns/${first}/cancel`)).body.status).toBe('cancelled');
    // Never started: it has ended at once, and says so.
    const ends = (await h.api('GET', '/events/v1/events?kind=campaign.finished')).body.list.filter(
      (e: { data: { campaign_id: string } }) => e.data.campaign_id === first,
    );
    expect(ends).toEqual([expect.objectContaining({ data: expect.objectContaining({ status: 'cancelled' }) })]);
    const again = await upload(file);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first);
    expect((await checked(again.body.id)).counts).toMatchObject({ blocked: 1, new: 1 });
  });

  it('takes the example file the reference serves, every row as written', async () => {
    const example = await fetch(`${h.baseUrl}/docs/campaign-example.csv`);
    expect(example.headers.get('content-type')).toMatch(/^text\/csv/);
    const created = await upload(Buffer.from(await example.arrayBuffer()), 'text/csv', '?key=example');
    expect(created.status).toBe(201);
    const rows = (await h.api('GET', `/campaigns/v1/campaigns/${created.body.id}/rows`)).body.list;
    expect(rows.filter((r: { faults?: unknown }) => r.faults)).toEqual([]);
    expect(rows.find((r: { line: number }) => r.line === 4).name).toBe('Transports Dupont & Fils; Logistique');
  });

  it('JSON lines are read too; another workspace sees none of it', async () => {
    const siren = makeSiren();
    h.sims.annuaire.seedLine({ siren, matriculePlateforme: '9998', dateDebutEffet: '2025-09-01' });
    const jsonl = JSON.stringify({
      siren,
      name: 'Atelier Modèle',
      signer_given_name: 'Jean',
      signer_surname: 'Dupont',
      signer_role: 'Gérant',
      contact_email: 'jean@example.fr',
      suffixes: ['FACTURES'],
    });
    const created = await upload(jsonl, 'application/jsonl');
    expect(created.status).toBe(201);
    const stranger = await h.newKey(['campaigns:rw'], (await createWorkspace(h.db, 'another integrator')).id);
    expect((await h.api('GET', `/campaigns/v1/campaigns/${created.body.id}`, undefined, stranger)).status).toBe(404);
  });
});

describe('a started campaign', () => {
  it('registers its rows at a lower priority, gives their signers’ links, pauses, resumes and cancels', async () => {
    const sirens = [makeSiren(), makeSiren(), makeSiren()];
    for (const siren of sirens)
      h.sims.annuaire.seedLine({ siren, matriculePlateforme: '9998', dateDebutEffet: '2025-09-01' });
    const blocked = makeSiren();
    h.sims.annuaire.seedCompany({ siren: blocked, raisonSociale: '', known: false });
    // One more, whose registration another entry starts between the dry run and the start: left out, said why.
    const busy = makeSiren();
    h.sims.annuaire.seedLine({ siren: busy, matriculePlateforme: '9998', dateDebutEffet: '2025-09-01' });
    const created = await upload([HEADER, ...sirens.map((s) => row(s)), row(blocked), row(busy)].join('\n'));
    const id = created.body.id;
    const early = await h.api('POST', `/campaigns/v1/campaigns/${id}/pause`);
    expect([early.status, early.body.code]).toEqual([409, 'campaign-status']);
    await eventually(
      async () => (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body.status === 'checked' || undefined,
      30_000,
    );

    await startRegistration(h, await createEntry(h, busy));
    const started = await h.api('POST', `/campaigns/v1/campaigns/${id}/start`);
    expect([started.status, started.body.status]).toEqual([200, 'running']);
    const running = await eventually(async () => {
      const c = (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body;
      return c.registrations.launched === 3 && c.registrations.states.processing === 3 ? c : undefined;
    }, 30_000);
    // The row left out is counted neither launched nor running.
    expect(running.registrations).toMatchObject({ launched: 3, states: { processing: 3 }, running: 3 });
    // Each row is an entry of the workspace, registered by the built-in workflow at priority 4, ours at 3.
    const rows = (await h.api('GET', `/campaigns/v1/campaigns/${id}/rows`)).body.list;
    expect(rows.map((r: { verdict: string }) => r.verdict)).toEqual(['new', 'new', 'new', 'blocked', 'new']);
    expect(rows[4].not_registered).toMatch(/^registration-running: /);
    expect(rows[0]).toMatchObject({ entry_id: expect.any(String), job_id: expect.any(String) });
    const jobs = (await h.api('GET', '/transform/v1/jobs?limit=100')).body.list.filter((j: { key?: string }) =>
      j.key?.startsWith(`campaign:${id}:`),
    );
    expect(jobs).toHaveLength(3);
    const description = await h.client.workflow.getHandle(`job-${jobs[0].id}`).describe();
    expect(description.priority?.priorityKey).toBe(4);

    const links = await eventually(async () => {
      const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns/${id}/links.csv`, {
        headers: { authorization: `Bearer ${h.apiKey}` },
      });
      const lines = (await res.text()).trim().split('\r\n');
      // Each row its own signer: a link, and no bundle's.
      return lines.slice(1).every((l) => /,http[^,]*\/reg\/[^,]+\/start,$/.test(l)) && lines.length === 4
        ? lines
        : undefined;
    }, 30_000);
    expect(links[0]).toBe('line,siren,name,signer_given_name,signer_surname,contact_email,state,link,bundle_link');
    expect(links[1]).toContain(
      `2,${sirens[0]},Société ${sirens[0]},Élodie,Martin,elodie.${sirens[0]}@example.fr,processing,`,
    );

    expect((await h.api('POST', `/campaigns/v1/campaigns/${id}/pause`)).body.status).toBe('paused');
    expect((await h.api('POST', `/campaigns/v1/campaigns/${id}/resume`)).body.status).toBe('running');

    // The cancellation's activity, Temporal out of reach: it fails (to be tried again) rather than skip a job, which
    // goes on as it was.
    const unreachable = new Client({
      connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500, interceptors: [] }), // no retries
    });
    const attempt = cancelCampaignJobs({ db: h.db, temporal: unreachable, log, config: h.config }, id, '');
    await expect(attempt).rejects.toMatchObject({ code: 'temporal-unavailable' });
    expect((await h.api('GET', `/transform/v1/jobs/${jobs[0].id}`)).body.status).not.toBe('CANCEL');

    const cancelled = await h.api('POST', `/campaigns/v1/campaigns/${id}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    // Not ended while its registrations are being cancelled.
    expect(cancelled.body.finished_at).toBeUndefined();
    await eventually(async () => {
      const statuses = await Promise.all(
        jobs.map(async (j: { id: string }) => (await h.api('GET', `/transform/v1/jobs/${j.id}`)).body.status),
      );
      return statuses.every((s) => s === 'CANCEL') || undefined;
    }, 30_000);
    // Once they are all cancelled, the housekeeping ends it and says so, once.
    await announceCampaigns(h.db);
    await announceCampaigns(h.db);
    const ended = (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body;
    expect([ended.status, ended.finished_at]).toEqual(['cancelled', expect.any(String)]);
    const finishedEvents = (await h.api('GET', '/events/v1/events?kind=campaign.finished')).body.list.filter(
      (e: { data: { campaign_id: string } }) => e.data.campaign_id === id,
    );
    expect(finishedEvents).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ status: 'cancelled', running: 0 }) }),
    ]);
    // Its SIRENs are free for another campaign.
    expect((await h.api('GET', `/campaigns/v1/preflight/${sirens[0]}`)).body.verdict).not.toBe('duplicate');
  }, 120_000);
});

describe('a campaign’s end', () => {
  it('is announced by the housekeeping once every registration has ended; its SIRENs are then free', async () => {
    const unknown = makeSiren();
    h.sims.annuaire.seedCompany({ siren: unknown, raisonSociale: '', known: false });
    const id = (await upload(`${HEADER}\n${row(unknown)}\n`)).body.id;
    await eventually(
      async () => (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body.status === 'checked' || undefined,
      30_000,
    );
    expect((await h.api('POST', `/campaigns/v1/campaigns/${id}/start`)).body.status).toBe('running');
    await eventually(async () => (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body.started_at, 10_000);
    expect(await announceCampaigns(h.db)).toMatchObject({ finished: expect.any(Number) });
    const done = (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body;
    expect([done.status, done.finished_at]).toEqual(['finished', expect.any(String)]);
    const events = (await h.api('GET', '/events/v1/events?kind=campaign.finished,campaign.progressed')).body.list;
    expect(
      events
        .filter((e: { data: { campaign_id: string } }) => e.data.campaign_id === id)
        .map((e: { kind: string }) => e.kind),
    ).toEqual(['campaign.finished', 'campaign.progressed']);
    const again = await h.api('POST', `/campaigns/v1/campaigns/${id}/pause`);
    expect([again.status, again.body.detail]).toEqual([
      409,
      `campaign ${id} is finished: it can pause only when running`,
    ]);
  });
});

describe('a file that cannot be read as one', () => {
  it('is refused naming its line or its column, and nothing is kept', async () => {
    const latin1 = Buffer.concat([
      Buffer.from(`${HEADER}\n${row(makeSiren())}\n552032534;Soci`),
      Buffer.from([0xe9]),
      Buffer.from('t\u00e9;a;b;c;d@e.fr;\n'),
    ]);
    const enc = await upload(latin1);
    expect([enc.status, enc.body.code, enc.body.detail]).toEqual([
      400,
      'bad-encoding',
      expect.stringMatching(/^line 3 is not UTF-8/),
    ]);
    const head = await upload('siren;nom\n552032534;x\n');
    expect([head.status, head.body.code, head.body.detail]).toEqual([
      400,
      'invalid-file',
      expect.stringMatching(/unknown column nom/),
    ]);
    const many = await upload([HEADER, ...Array.from({ length: 51 }, () => row(makeSiren()))].join('\n'));
    expect([many.status, many.body.code, many.body.detail]).toEqual([
      413,
      'too-large',
      expect.stringMatching(/more than 50 rows/),
    ]);
    expect((await upload('{}', 'application/json')).status).toBe(415);
    const { rows } = await h.db.query(`SELECT count(*)::int AS n FROM campaigns WHERE status = 'uploading'`);
    expect(rows[0]).toEqual({ n: 0 });
  });
});

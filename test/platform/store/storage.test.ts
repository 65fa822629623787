// The storage suite, on embedded PGlite and, when TEST_DATABASE_URL is set (CI), on a real PostgreSQL.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDb, type Db, type Queryable } from '../../../platform/store/db';
import { getMandate } from '../../../platform/store/mandates';
import { issueMandate, startsWith } from '../../../platform/store/mandate-numbers';
import { getEntry, insertEntry, listEntries } from '../../../platform/store/entries';
import { ConflictError } from '../../../platform/store/conflict';
import { putMeta } from '../../../platform/store/entry-meta';
import { entryFactsOf, entryFactsRead, readEntryFacts } from '../../../platform/store/entry-facts';
import { holdDirectoryLine, recordDirectoryLine } from '../../../platform/store/directory-holdings';
import { keepPlannedTargets } from '../../../platform/store/directory-step-targets';
import { configuredStateEffect, recordState, stateHistory } from '../../../platform/store/entry-states';
import { markJobsStarted, setJobStatus } from '../../../platform/store/jobs';
import { recordJob } from '../../../domain/jobs/record-job';
import { getJob } from '../../../platform/store/job-views';
import { NoApprovalRecorded, recordWaitEvent, writeJournal } from '../../../platform/store/job-journal';
import { approveMandate } from '../../support/mandate';
import type { Definition } from '../../../contract/job';
import { ApiKeyCache, KEY_REVOKED_CHANNEL } from '../../../platform/store/api-key-cache';
import { migrate } from '../../../platform/store/migrate';
import { createApiKey, createWorkspace, findApiKey, revokeApiKey, sha256Hex } from '../../../platform/store/workspaces';
import { freshDb } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';

const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;
console.info(
  `storage suite engines: ${engines.join(', ')}${engines.length === 1 ? ' (set TEST_DATABASE_URL to add PostgreSQL)' : ''}`,
);

describe.each(engines)('store on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: string;

  beforeAll(async () => {
    ({ db, drop } = await freshDb(engine));
    ws = (await createWorkspace(db, 'acme')).id;
  });
  afterAll(() => drop());

  const newEntry = (opts: { key?: string; siren?: string } = {}) => {
    const siren = opts.siren ?? makeSiren();
    return insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
      ...opts,
    });
  };
  /** A step of the definitions below: its name says its id. */
  const step = (id: string, provider: string, config?: Record<string, unknown>) => ({
    id,
    name: `step ${id}`,
    provider,
    ...(config && { config }),
  });
  /** A job running `definition` on entry `entryId`; its id. */
  const definitionJob = async (entryId: string, definition: Definition) => {
    const id = crypto.randomUUID();
    await recordJob(db, {
      id,
      workspaceId: ws,
      workflowId: crypto.randomUUID(),
      workflowType: 'runDefinition',
      entryId,
      docSchema: 'org/party',
      definition,
      args: {},
      tags: [],
      registers: false,
    });
    return id;
  };

  it('migrations are versioned and re-running them applies nothing', async () => {
    expect(await migrate(db)).toEqual([]);
    const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
    expect(rows.map((r) => r.name)).toContain('1763838000000_initial-schema');
  });

  it('stores API keys hashed and refuses revoked ones', async () => {
    const { id, secret } = await createApiKey(db, ws, { name: 'ci', scopes: ['entries:rw'] });
    const { rows } = await db.query<{ secret_sha256: string }>('SELECT secret_sha256 FROM api_keys WHERE id = $1', [
      id,
    ]);
    expect(rows[0]!.secret_sha256).toBe(sha256Hex(secret));
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(await findApiKey(db, secret)).toEqual({ keyId: id, workspaceId: ws, scopes: ['entries:rw'] });
    expect(await revokeApiKey(db, id)).toBe(true);
    expect(await findApiKey(db, secret)).toBeUndefined();
  });

  it('answers keys seen lately from a cache that a revocation empties at once, and that keeps no lookup crossing one', async () => {
    const cache = new ApiKeyCache<{ keyId: string }>(db);
    await vi.waitFor(() => expect(cache.serving).toBe(true), { timeout: 5000 });
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    cache.keep('hash-a', { keyId: a }, cache.begin());
    expect(cache.get('hash-a')).toEqual({ keyId: a });
    const begun = cache.begin();
    // Revoked by any session (another process on a server): the notification comes back to this one.
    await db.query(`SELECT pg_notify('${KEY_REVOKED_CHANNEL}', $1)`, [a]);
    await vi.waitFor(() => expect(cache.get('hash-a')).toBeUndefined(), { timeout: 5000 });
    cache.keep('hash-b', { keyId: b }, begun); // looked up before that revocation: not kept
    expect(cache.get('hash-b')).toBeUndefined();
  });

  it('keeps an entry with its data, and refuses a reused id or key', async () => {
    const e = await newEntry({ key: 'party-1' });
    const got = await getEntry(db, ws, e.id);
    expect(got).toMatchObject({ id: e.id, key: 'party-1', doc_schema: 'org/party', meta: [], faults: [] });
    expect((got!.data as { name: string }).name).toBe('Boulangerie Exemple SAS');
    await expect(
      insertEntry(db, { id: e.id, workspaceId: ws, docSchema: 'org/party', data: {} }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(newEntry({ key: 'party-1' })).rejects.toThrow(/key "party-1"/);
  });

  it('does not show an entry to another workspace', async () => {
    const e = await newEntry();
    const other = (await createWorkspace(db, 'other')).id;
    expect(await getEntry(db, other, e.id)).toBeUndefined();
  });

  it('pages entries with a cursor, newest first or oldest first, without gaps or repeats', async () => {
    const pws = (await createWorkspace(db, 'paging')).id;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const siren = makeSiren();
      ids.push(
        (
          await insertEntry(db, {
            id: crypto.randomUUID(),
            workspaceId: pws,
            docSchema: 'org/party',
            data: party(siren),
            siren,
          })
        ).id,
      );
    }
    const walk = async (ascending: boolean) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listEntries(db, pws, { limit: 3, cursor, ascending });
        seen.push(...page.list.map((e) => e.id));
        cursor = page.next_cursor;
      } while (cursor);
      return seen;
    };
    expect(await walk(true)).toEqual(ids);
    expect(await walk(false)).toEqual([...ids].reverse());
  });

  it('records a state once per job step, keeping the history', async () => {
    const e = await newEntry();
    const jobId = crypto.randomUUID();
    expect(await db.tx((q) => recordState(q, { entryId: e.id, state: 'processing', jobId, stepId: 's1' }))).toEqual({
      changed: true,
    });
    // A retried activity writes the same (job, step) again: nothing changes.
    expect(await db.tx((q) => recordState(q, { entryId: e.id, state: 'processing', jobId, stepId: 's1' }))).toEqual({
      changed: false,
    });
    await db.tx((q) =>
      recordState(q, {
        entryId: e.id,
        state: 'error',
        jobId,
        stepId: 's2',
        faults: [{ provider: 'x', code: 'c', message: 'm' }],
      }),
    );
    expect(await getEntry(db, ws, e.id)).toMatchObject({
      state: 'error',
      faults: [{ provider: 'x', code: 'c', message: 'm' }],
    });
    expect((await stateHistory(db, e.id)).map((h) => h.state)).toEqual(['processing', 'error']);
  });

  it('upserts meta rows and keeps refs unique', async () => {
    const e = await newEntry();
    await putMeta(db, e.id, 'fr-former-matricule', { src: 'api', value: { matricule: '0042' } });
    const m = await putMeta(db, e.id, 'fr-former-matricule', {
      src: 'api',
      value: { matricule: '0043' },
      ref: `ref-${e.id}`,
    });
    expect(m).toMatchObject({ id: `${e.id}:api:fr-former-matricule`, value: { matricule: '0043' }, indexed: false });
    const e2 = await newEntry();
    await expect(putMeta(db, e2.id, 'other', { src: 'api', ref: `ref-${e.id}` })).rejects.toBeInstanceOf(ConflictError);
    expect((await getEntry(db, ws, e.id))!.meta).toHaveLength(1);
  });

  it("records a job only on an entry of this workspace that processes the definition's schema", async () => {
    const e = await newEntry();
    const definition = { steps: [], rescue: [] };
    const job = (over: { workspaceId?: string; entryId?: string; docSchema?: string }) =>
      recordJob(db, {
        id: crypto.randomUUID(),
        workspaceId: ws,
        workflowId: crypto.randomUUID(),
        workflowType: 'runDefinition',
        entryId: e.id,
        docSchema: 'org/party',
        definition,
        args: {},
        tags: [],
        ...over,
        registers: false,
      });
    expect(await job({ entryId: crypto.randomUUID() })).toEqual({ outcome: 'no-entry' });
    expect(await job({ workspaceId: (await createWorkspace(db, 'other')).id })).toEqual({ outcome: 'no-entry' });
    expect(await job({ docSchema: 'bill/invoice' })).toEqual({ outcome: 'wrong-schema', schema: 'org/party' });
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE silo_entry_id = $1', [
      e.id,
    ]);
    expect(rows[0]!.n).toBe(0);
    const first = await job({});
    expect(first).toMatchObject({ outcome: 'inserted' });
    // The refusal names the job running, and how to stop it.
    await expect(job({})).rejects.toThrow(/already has job [0-9a-f-]{36} \((QUEUED|RUN|WAIT)\) running: .*\/cancel/);
  });

  it('registers a SIREN once per workspace: refused while an entry has it registered or another registration of it runs', async () => {
    const siren = makeSiren();
    const [a, b] = [await newEntry({ siren }), await newEntry({ siren })];
    const definition = { steps: [{ id: 'd', name: 'Register', provider: 'gov-fr.directory.register' }], rescue: [] };
    const job = (entryId: string, registers = true, workspaceId = ws) =>
      recordJob(db, {
        id: crypto.randomUUID(),
        workspaceId,
        workflowId: crypto.randomUUID(),
        workflowType: 'registration',
        entryId,
        docSchema: 'org/party',
        definition,
        args: {},
        tags: [],
        registers,
      });
    // Both at once: one is recorded, the other refused naming it.
    const both = await Promise.allSettled([job(a.id), job(b.id)]);
    const won = both.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof job>>>;
    const lost = both.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(won.value).toMatchObject({ outcome: 'inserted' });
    const running = (won.value as { job: { id: string; silo_entry_id: string } }).job;
    expect(lost.reason).toBeInstanceOf(ConflictError);
    expect(lost.reason.message).toBe(
      `SIREN ${siren} is already being registered by job ${running.id} on entry ${running.silo_entry_id}: wait for it to end`,
    );
    // A job that does not register the SIREN is not held back by it.
    const other = running.silo_entry_id === a.id ? b : a;
    expect(await job(other.id, false)).toMatchObject({ outcome: 'inserted' });
    await db.query(`UPDATE jobs SET completed_at = now(), status = 'OK' WHERE silo_entry_id = ANY ($1)`, [
      [a.id, b.id],
    ]);

    await db.tx((q) => recordState(q, { entryId: a.id, state: 'registered', jobId: running.id, stepId: 'registered' }));
    expect(await job(a.id)).toEqual({ outcome: 'siren-registered', siren, entryId: a.id });
    expect(await job(b.id)).toEqual({ outcome: 'siren-registered', siren, entryId: a.id });
    // Another workspace's entry of the same company is its own business.
    const other2 = await createWorkspace(db, 'elsewhere');
    const c = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: other2.id,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    expect(await job(c.id, true, other2.id)).toMatchObject({ outcome: 'inserted' });
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM jobs WHERE silo_entry_id = ANY ($1) AND completed_at IS NULL',
      [[a.id, b.id]],
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('journals a job idempotently: intents per step, events once per index', async () => {
    const siren = makeSiren();
    const e = await newEntry({ siren });
    const jobId = crypto.randomUUID();
    const definition = {
      steps: [{ id: 's1', name: 'Set state', provider: 'silo.state', config: { state: 'processing' } }],
      rescue: [],
    };
    const inserted = await recordJob(db, {
      id: jobId,
      workspaceId: ws,
      workflowId: crypto.randomUUID(),
      workflowType: 'runDefinition',
      entryId: e.id,
      docSchema: 'org/party',
      definition,
      args: {},
      tags: ['t'],
      registers: false,
    });
    expect(inserted).toMatchObject({
      outcome: 'inserted',
      siren,
      job: { id: jobId, status: 'QUEUED', silo_entry_id: e.id, intents: [] },
    });
    const start = { lines: [{ step: 's1', at: 'start' as const, status: 'RUN' as const }] };
    await writeJournal(db, jobId, start);
    await writeJournal(db, jobId, start); // replayed
    await writeJournal(db, jobId, { lines: [{ step: 's1', at: 'end', status: 'OK' }] });
    await setJobStatus(db, jobId, 'OK', []);
    await setJobStatus(db, jobId, 'RUN'); // a late write cannot reopen a finished job
    const job = await getJob(db, ws, jobId);
    expect(job).toMatchObject({ status: 'OK', faults: [], tags: ['t'] });
    expect(job!.completed_at).toBeDefined();
    expect(job!.intents).toEqual([
      expect.objectContaining({
        step_id: 's1',
        completed: true,
        events: [
          expect.objectContaining({ index: 0, status: 'RUN' }),
          expect.objectContaining({ index: 1, status: 'OK' }),
        ],
      }),
    ]);
    // Timestamps read through the view's JSON aggregates are the same ISO instants as the row's own.
    const isoMs = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    const intent = job!.intents[0]!;
    for (const t of [intent.created_at, intent.updated_at, ...intent.events.map((x) => x.at)]) expect(t).toMatch(isoMs);
    expect(Date.parse(intent.events[1]!.at!)).toBeGreaterThanOrEqual(Date.parse(job!.created_at!));
    expect(Math.abs(Date.parse(intent.created_at!) - Date.parse(job!.created_at!))).toBeLessThan(60_000);
  });

  it('marks started jobs RUN together, leaving alone those that have moved on', async () => {
    const definition = { steps: [step('a', 'silo.state')], rescue: [] };
    const [queued, other, ended] = [
      await definitionJob((await newEntry()).id, definition),
      await definitionJob((await newEntry()).id, definition),
      await definitionJob((await newEntry()).id, definition),
    ];
    await setJobStatus(db, ended, 'ERR', []); // its workflow was terminated before the mark came
    await markJobsStarted(db, [queued, ended, crypto.randomUUID()]);
    expect(await getJob(db, ws, queued)).toMatchObject({ status: 'RUN' });
    expect(await getJob(db, ws, ended)).toMatchObject({ status: 'ERR' });
    expect(await getJob(db, ws, other)).toMatchObject({ status: 'QUEUED' }); // not started: the sweeper's
  });

  it("journals lines by step id with the names and order of the job's definition, ends the job once, loses no line", async () => {
    const e = await newEntry();
    const definition = {
      steps: [step('a', 'silo.state'), step('w', 'gov-fr.agreement.wait.approval'), step('b', 'silo.state')],
      rescue: [step('r', 'silo.state')],
    };
    const jobId = await definitionJob(e.id, definition);
    // Each write names its step: the store derives the lines and the job's status from the definition.
    const end = (id: string) => ({ step: { step: id, at: 'end' as const } });
    await writeJournal(db, jobId, end('a')); // and the wait's start: the job waits
    expect(await getJob(db, ws, jobId)).toMatchObject({ status: 'WAIT' });
    await db.tx((q) => recordWaitEvent(q, jobId, 'w', { status: 'WAIT', code: 'submitted' }));
    // The step after the wait records its end: only once an approval is recorded.
    await expect(writeJournal(db, jobId, end('b'))).rejects.toThrow(NoApprovalRecorded);
    expect(await getJob(db, ws, jobId)).toMatchObject({ status: 'WAIT' });
    await approveMandate(db, { entryId: e.id, jobId });
    await writeJournal(db, jobId, { step: { step: 'b', at: 'start' } }); // the wait ends, the job runs again
    expect(await getJob(db, ws, jobId)).toMatchObject({ status: 'RUN' });
    await writeJournal(db, jobId, end('b')); // the last step: the job ends OK
    await writeJournal(db, jobId, { lines: [], status: { status: 'ERR', faults: [] } }); // a late write changes nothing

    const job = await getJob(db, ws, jobId);
    expect(job).toMatchObject({ status: 'OK' });
    expect(
      job!.intents.map((i) => [i.step_id, i.name, i.provider, i.completed, i.events.map((x) => x.status)]),
    ).toEqual([
      ['a', 'step a', 'silo.state', true, ['RUN', 'OK']],
      ['w', 'step w', 'gov-fr.agreement.wait.approval', true, ['RUN', 'WAIT', 'OK']],
      ['b', 'step b', 'silo.state', true, ['RUN', 'OK']],
    ]);
    const { rows } = await db.query<{ payload: unknown }>(
      `SELECT payload FROM events WHERE job_id = $1 AND kind = 'job.completed'`,
      [jobId],
    );
    expect(rows.map((r) => r.payload)).toEqual([{ entry_id: e.id, job_id: jobId, status: 'OK', faults: [] }]);
    // A step the job does not have is refused, not dropped: the caller's transaction rolls back.
    await expect(writeJournal(db, jobId, { lines: [{ step: 'nope', at: 'start', status: 'RUN' }] })).rejects.toThrow();
    await expect(writeJournal(db, jobId, { step: { step: 'nope', at: 'end' } })).rejects.toThrow(/no step nope/);
    await expect(db.tx((q) => recordWaitEvent(q, jobId, 'nope', { status: 'WAIT' }))).rejects.toThrow(/no step nope/);
  });

  it("derives a rescue's end, a wait found not needed and a step's config from the definition; a configured state must be one", async () => {
    const e = await newEntry();
    const definition = {
      steps: [
        step('renew', 'gov-fr.agreement.renew'),
        step('w', 'gov-fr.agreement.wait.approval'),
        step('p', 'peppol.register', { visibility: 'smp' }),
      ],
      rescue: [step('r1', 'silo.state', { state: 'error' }), step('r2', 'silo.state', { state: 'nope' })],
    };
    const jobId = await definitionJob(e.id, definition);
    await setJobStatus(db, jobId, 'RUN'); // started
    // Not needed: the wait recorded started and ended, saying why; the job does not wait.
    await writeJournal(db, jobId, { step: { step: 'renew', at: 'end', waive: 'not needed' } });
    expect(await getJob(db, ws, jobId)).toMatchObject({ status: 'RUN' });
    // No approval asked: the wait before the step has ended. Its start returns its config.
    expect(await writeJournal(db, jobId, { step: { step: 'p', at: 'start' } })).toEqual({
      effect: undefined,
      config: { visibility: 'smp' },
    });
    const fault = { provider: 'peppol.register', code: 'boom', message: 'it failed' };
    const failed = [{ step: 'p', at: 'end' as const, status: 'KO' as const, code: 'boom', message: 'it failed' }];
    const state = (id: string) => configuredStateEffect({ entryId: e.id, jobId, stepId: id, faults: [fault] });
    const r1 = await writeJournal(
      db,
      jobId,
      { step: { step: 'r1', at: 'end' }, lines: failed, faults: [fault] },
      state('r1'),
    );
    expect(r1.effect).toEqual([true, 'error']);
    expect(await getJob(db, ws, jobId)).toMatchObject({ status: 'RUN' });
    expect((await getEntry(db, ws, e.id))!.state).toBe('error');
    // A state the definition configures that is none: refused, nothing written.
    await expect(
      writeJournal(db, jobId, { step: { step: 'r2', at: 'end' }, faults: [fault] }, state('r2')),
    ).rejects.toMatchObject({ type: 'invalid-config', message: expect.stringContaining('config.state') });
    // The last rescue step ends the job ERR with the faults.
    await writeJournal(db, jobId, { step: { step: 'r2', at: 'end' }, faults: [fault] });
    const job = await getJob(db, ws, jobId);
    expect(job).toMatchObject({ status: 'ERR', faults: [fault] });
    expect(job!.intents.map((i) => [i.step_id, i.events.map((x) => [x.status, x.message ?? null])])).toEqual([
      [
        'renew',
        [
          ['RUN', null],
          ['OK', null],
        ],
      ],
      [
        'w',
        [
          ['RUN', null],
          ['OK', 'not needed'],
        ],
      ],
      [
        'p',
        [
          ['RUN', null],
          ['KO', 'it failed'],
        ],
      ],
      [
        'r1',
        [
          ['RUN', null],
          ['OK', null],
        ],
      ],
      [
        'r2',
        [
          ['RUN', null],
          ['OK', null],
        ],
      ],
    ]);
  });

  it("reads what a directory or Peppol step needs of its entry with the step's start, as the step reads it alone", async () => {
    const siren = makeSiren();
    const e = await newEntry({ siren });
    const addresses = { entrust: 'all', addresses: [{ id: siren, siren }] };
    await putMeta(db, e.id, 'fr-invoicing-addresses', { src: 'test', value: addresses });
    const jobId = await definitionJob(e.id, { steps: [step('d', 'gov-fr.directory.register')], rescue: [] });
    const keys = ['fr-invoicing-addresses', 'fr-former-matricule'];
    const ids = { workspaceId: ws, entryId: e.id, jobId, stepId: 'd' };
    // Nothing yet: no mandate, no holding, no line, no plan.
    expect(await readEntryFacts(db, ids, keys)).toEqual({
      found: true,
      siren,
      taxId: party(siren).tax_id,
      metas: { 'fr-invoicing-addresses': addresses },
      lines: [],
    });

    await approveMandate(db, { entryId: e.id, jobId, formerMatricule: '0042' });
    await holdDirectoryLine(db, siren, e.id, 7);
    await recordDirectoryLine(db, { address: siren, siren, entryId: e.id, idInstance: 7 });
    await keepPlannedTargets(db, jobId, 'd', { targets: [{ address: siren, siren }], takenOverFrom: '0042' });
    const withStart = await writeJournal(db, jobId, { step: { step: 'd', at: 'start' } }, entryFactsRead(ids, keys));
    const facts = entryFactsOf(withStart.effect);
    expect(facts).toEqual(await readEntryFacts(db, ids, keys));
    expect(facts).toMatchObject({
      found: true,
      siren,
      mandate: { formerMatricule: '0042' },
      holder: e.id,
      lines: [{ address: siren, idInstance: 7 }],
      planned: { targets: [{ address: siren, siren }], takenOverFrom: '0042' },
    });
    expect(facts.mandate!.number).toMatch(new RegExp(`^${siren}_`));
    // The start was recorded with the read.
    expect((await getJob(db, ws, jobId))!.intents.map((i) => [i.step_id, i.events.map((x) => x.status)])).toEqual([
      ['d', ['RUN']],
    ]);

    // Another workspace's step finds no entry (and learns nothing of it).
    const other = (await createWorkspace(db, 'other')).id;
    expect(await readEntryFacts(db, { ...ids, workspaceId: other }, keys)).toMatchObject({ found: false });
  });

  it('rolls a failed transaction back', async () => {
    const e = await newEntry();
    await expect(
      db.tx(async (q) => {
        await recordState(q, { entryId: e.id, state: 'void', jobId: crypto.randomUUID(), stepId: 'x' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await getEntry(db, ws, e.id))!.state).toBeUndefined();
    expect(await stateHistory(db, e.id)).toEqual([]);
  });

  it('numbers the mandates of one company and day in order, counting through an index', async () => {
    const siren = makeSiren();
    const e = await newEntry({ siren });
    const issue = (jobId: string) => issueMandate(db, { entryId: e.id, jobId, matricule: '0145', day: '2026-11-23' });
    const [first, second] = [crypto.randomUUID(), crypto.randomUUID()];
    expect(await issue(first)).toBe(`${siren}_0145_20261123_01`);
    expect(await issue(first)).toBe(`${siren}_0145_20261123_01`); // the same job: the same mandate
    expect(await issue(second)).toBe(`${siren}_0145_20261123_02`);
    for (let i = 3; i < 10; i++) await issue(crypto.randomUUID());
    expect(await issue(crypto.randomUUID())).toBe(`${siren}_0145_20261123_10`);
    expect(await getMandate(db, e.id)).toMatchObject({
      mandate_number: `${siren}_0145_20261123_10`,
      issued_on: '2026-11-23',
      signed: false,
    });
    // The count by prefix must not read every mandate ever issued, even in the generic plan of a prepared statement.
    const plan = await db.tx(async (q) => {
      await q.query('SET LOCAL enable_seqscan = off');
      await q.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await q.query(
        `PREPARE mandate_count(text) AS SELECT count(*) FROM mandate_numbers WHERE ${startsWith('number', '$1')}`,
      );
      const { rows } = await q.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN EXECUTE mandate_count('${siren}_0145_20261123_')`,
      );
      await q.query('DEALLOCATE mandate_count');
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Index Cond: .*number/); // the prefix bounds the scan (a full index scan would only filter)
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('statements on PostgreSQL', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let url: string | undefined;
  beforeAll(async () => ({ db, drop, url } = await freshDb('postgres')));
  afterAll(() => drop());

  it('refuses a key revoked by another process (bin/keys) within a second', async () => {
    const ws = (await createWorkspace(db, 'acme')).id;
    const { id, secret } = await createApiKey(db, ws, { name: 'erp' });
    expect(await findApiKey(db, secret)).toMatchObject({ keyId: id }); // its cache starts listening
    const probe = new ApiKeyCache(db); // listens as that cache does: once it serves, so does that one
    await vi.waitFor(() => expect(probe.serving).toBe(true), { timeout: 5000 });
    for (let i = 0; i < 3; i++) expect(await findApiKey(db, secret)).toMatchObject({ keyId: id }); // kept
    const other = await openDb({ url: url! });
    try {
      expect(await revokeApiKey(other, id)).toBe(true);
    } finally {
      await other.close();
    }
    const revokedAt = Date.now();
    await vi.waitFor(async () => expect(await findApiKey(db, secret)).toBeUndefined(), { timeout: 5000, interval: 20 });
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it('are prepared once per connection when they take parameters, and still answer after a migration changes a table', async () => {
    await db.query('CREATE TABLE prep_probe (id int PRIMARY KEY)');
    await db.query('INSERT INTO prep_probe VALUES ($1), ($2)', [1, 2]);
    const read = (q: Queryable) => q.query<Record<string, unknown>>('SELECT * FROM prep_probe WHERE id = $1', [1]);
    await db.session(async (q) => {
      await read(q);
      await read(q);
      const { rows } = await q.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
      expect(rows.filter((r) => r.statement.includes('FROM prep_probe WHERE id = $1'))).toHaveLength(1);
      // Another process adds a column: the prepared statement's result changed shape.
      await db.query('ALTER TABLE prep_probe ADD COLUMN label text');
      expect((await read(q)).rows).toEqual([{ id: 1, label: null }]);
      expect((await read(q)).rows).toEqual([{ id: 1, label: null }]);
    });
  });
});

// gov-fr.directory.register / disable called as plain functions against the simulator and a real store.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { directoryActivities } from '../../activities/gov-fr-directory';
import { today } from '../../integrations/annuaire/types';
import { loadConfig } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { insertEntry } from '../../platform/store/entries';
import { putMeta } from '../../platform/store/entry-meta';
import { createWorkspace } from '../../platform/store/workspaces';
import { startAnnuaireSimulator, type AnnuaireSimulator } from '../../simulators/annuaire';
import type { StepInput } from '../../contract/journal';
import { makeSiren, party, siretOf } from '../../bin/stack/sample-parties';
import { freshDb, log } from '../support/harness';
import { approveMandate } from '../support/mandate';
import { createClients } from '../../integrations/clients';
import { TRIES } from '../../integrations/outbound-http';
import { INVOICING_ADDRESSES_META, type InvoicingAddresses } from '../../domain/party/invoicing-addresses';
import { entryDirectoryLines } from '../../platform/store/directory-holdings';

describe('directory activities', () => {
  let sim: AnnuaireSimulator;
  let db: Db;
  let drop: () => Promise<void>;
  let workspaceId: string;
  let acts: ReturnType<typeof directoryActivities>;
  /** Another platform's calls to the directory (the simulator does not tell platforms apart by credentials). */
  let annuaireAsNewPlatform: ReturnType<typeof createClients>['annuaire'];

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    ({ db, drop } = await freshDb());
    workspaceId = (await createWorkspace(db, 'directory')).id;
    const config = loadConfig({
      DATA_DIR: path.join(os.tmpdir(), 'pa-test'),
      ANNUAIRE_URL: sim.url,
      PA_MATRICULE: '0145',
    });
    acts = directoryActivities({ db, log, config }, createClients(config).annuaire);
    annuaireAsNewPlatform = createClients(config).annuaire;
  });
  afterEach(() => sim.setFaults(undefined));
  afterAll(async () => {
    await sim.close();
    await drop();
  });

  /** A party whose mandate is signed and approved, carrying a take-over consent when `former` is given. */
  async function newParty(siren = makeSiren(), former?: string, opts: { approved?: boolean } = {}) {
    const id = crypto.randomUUID();
    await insertEntry(db, {
      id,
      workspaceId,
      docSchema: 'https://gobl.org/draft-0/org/party',
      data: party(siren),
      siren,
    });
    if (opts.approved !== false) await approveMandate(db, { entryId: id, formerMatricule: former });
    const input: StepInput = { jobId: crypto.randomUUID(), workspaceId, entryId: id, stepId: 's1', config: {} };
    return { siren, entryId: id, input };
  }
  const register = (i: StepInput) => acts.register(i);
  /** The one line of a registration of the SIREN address alone. */
  const line = (r: { lines: { idInstance: number }[] }) => r.lines[0]!.idInstance;
  const disable = (i: StepInput) => acts.disable(i);
  const linesOf = (siren: string) => sim.lines().filter((l) => l.siren === siren);
  const inForce = (siren: string) =>
    linesOf(siren).filter((l) => l.dateDebutEffet <= today() && (l.dateFinEffet === null || today() < l.dateFinEffet));
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as ApplicationFailure,
    );

  it('register moves the SIREN from 9998 to us, once, even when run twice', async () => {
    const { siren, input } = await newParty();
    const first = await register(input);
    expect(first).toEqual({ lines: [{ address: siren, idInstance: expect.any(Number), created: true }] });
    const again = await register(input);
    expect(again).toEqual({ lines: [{ address: siren, idInstance: line(first), created: false }] });

    expect(inForce(siren)).toEqual([
      expect.objectContaining({ idInstance: line(first), matriculePlateforme: '0145', dateDebutEffet: today() }),
    ]);
    expect(linesOf(siren).map((l) => [l.matriculePlateforme, l.dateFinEffet])).toEqual([
      ['9998', today()],
      ['0145', null],
    ]);
  });

  it('take-over without fr-former-matricule fails, says what to set, and changes nothing', async () => {
    const { siren, input } = await newParty();
    sim.seedLine({ siren, matriculePlateforme: '0042' });
    const err = await failure(register(input));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'takeover-identifier-missing', nonRetryable: true });
    expect(err.message).toContain('platform 0042');
    expect(err.message).toContain('fr-former-matricule');
    expect(linesOf(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '0042', dateFinEffet: null })]);
  });

  it('take-over naming another platform fails as a mismatch', async () => {
    const { siren, entryId, input } = await newParty(makeSiren(), '0077');
    sim.seedLine({ siren, matriculePlateforme: '0042' });
    await putMeta(db, entryId, 'fr-former-matricule', { src: 'api', value: { matricule: '0077' } });
    const err = await failure(register(input));
    expect(err).toMatchObject({ type: 'takeover-identifier-mismatch', nonRetryable: true });
    expect(err.message).toContain('0077');
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '0042' })]);
  });

  it.each([
    ['an object', { matricule: '0042' }],
    ['a string', '0042'],
  ])(
    'take-over with fr-former-matricule as %s ends their lines at the switch date and creates ours',
    async (_, value) => {
      const { siren, entryId, input } = await newParty(makeSiren(), '0042');
      const theirs = sim.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: '2025-01-01' });
      const theirSiret = sim.seedLine({
        siren,
        siret: `${siren}00012`,
        matriculePlateforme: '0042',
        dateDebutEffet: '2025-01-01',
      });
      await putMeta(db, entryId, 'fr-former-matricule', { src: 'api', value });

      const r = await register(input);
      // The mandate entrusts every address: each one the former platform held is ours from the switch day.
      expect(r).toEqual({
        lines: [
          { address: siren, idInstance: expect.any(Number), created: true },
          { address: `${siren}_${siren}00012`, idInstance: expect.any(Number), created: true },
        ],
        takenOverFrom: '0042',
      });
      const byId = new Map(linesOf(siren).map((l) => [l.idInstance, l]));
      expect(byId.get(theirs.idInstance)?.dateFinEffet).toBe(today());
      expect(byId.get(theirSiret.idInstance)?.dateFinEffet).toBe(today());
      expect(
        inForce(siren)
          .map((l) => [l.identifiantAdressage, l.matriculePlateforme, l.dateDebutEffet])
          .sort(),
      ).toEqual([
        [siren, '0145', today()],
        [`${siren}_${siren}00012`, '0145', today()],
      ]);
      expect(await register(input)).toEqual({
        lines: r.lines.map((l) => ({ ...l, created: false })),
        takenOverFrom: '0042',
      });
    },
  );

  it('disable after another platform took the lines over: nothing to end, nothing put back on 9998', async () => {
    const { siren, input } = await newParty();
    const ours = line(await register(input));
    // The company moved: the new platform ended our line today and holds the SIREN from today.
    await annuaireAsNewPlatform.endLine(ours, today());
    await annuaireAsNewPlatform.createLine({ siren, matriculePlateforme: '0077', dateDebutEffet: today() });
    expect(await disable(input)).toEqual({ ended: [], takenOverBy: ['0077'] });
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '0077' })]);
  });

  it('disable ends our line and puts the SIREN back on 9998, once', async () => {
    const { siren, input } = await newParty();
    const idInstance = line(await register(input));
    const r = await disable(input);
    expect(r).toEqual({ ended: [idInstance], restoredIdInstance: expect.any(Number) });
    expect(inForce(siren)).toEqual([
      expect.objectContaining({
        idInstance: r.restoredIdInstance,
        matriculePlateforme: '9998',
        dateDebutEffet: today(),
      }),
    ]);
    expect(await disable(input)).toEqual({ ended: [] });
    expect(linesOf(siren)).toHaveLength(3); // default 9998, ours, 9998 again: history kept

    // And the party can come back the same day.
    expect(await register(input)).toMatchObject({ lines: [{ created: true }] });
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '0145' })]);
  });

  it('an unavailable Annuaire is a retryable failure; a refused request is not', async () => {
    const { input } = await newParty();
    sim.setFaults({ status: 503 });
    expect(await failure(register(input))).toMatchObject({ type: 'annuaire-unavailable', nonRetryable: false });
    sim.setFaults(undefined);

    const bad = await newParty('12345678X'); // not what the directory accepts as a SIREN
    expect(await failure(register(bad.input))).toMatchObject({ type: 'annuaire-rejected', nonRetryable: true });
  });

  it('refuses to act without a signed, approved mandate', async () => {
    const { siren, input } = await newParty(makeSiren(), undefined, { approved: false });
    expect(await failure(register(input))).toMatchObject({ type: 'mandate-not-approved', nonRetryable: true });
    expect(linesOf(siren).map((l) => l.matriculePlateforme)).toEqual([]);
  });

  it('acts on the consent in the signed mandate, not on a take-over identifier set afterwards', async () => {
    const { siren, entryId, input } = await newParty();
    sim.seedLine({ siren, matriculePlateforme: '0042' });
    await putMeta(db, entryId, 'fr-former-matricule', { src: 'api', value: '0042' }); // after signing
    const err = await failure(register(input));
    expect(err).toMatchObject({ type: 'takeover-consent-missing', nonRetryable: true });
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '0042' })]);
  });

  it("another entry of the same SIREN can neither take nor end this entry's line", async () => {
    const { siren, input } = await newParty();
    const idInstance = line(await register(input));
    const other = await newParty(siren);
    expect(await failure(register(other.input))).toMatchObject({
      type: 'already-registered',
      message: `0225:${siren} is already registered`,
    });
    expect(await disable(other.input)).toEqual({ ended: [] });
    expect(inForce(siren)).toEqual([expect.objectContaining({ idInstance, matriculePlateforme: '0145' })]);
  });

  it("the rescue's cover gives the SIREN's days without a line back to 9998, bounded by a line to come; once", async () => {
    const { siren, input } = await newParty();
    // A handover cut short: the 9998 line ended today, ours never created; another platform from a later day.
    const fictive = sim.seedLine({ siren, matriculePlateforme: '9998', dateFinEffet: today() });
    const later = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    sim.seedLine({ siren, matriculePlateforme: '0777', dateDebutEffet: later });
    const cover = acts.cover;
    expect(await cover(input)).toEqual({ restored: 1 });
    expect(
      linesOf(siren)
        .filter((l) => l.idInstance !== fictive.idInstance)
        .map((l) => [l.matriculePlateforme, l.dateDebutEffet, l.dateFinEffet]),
    ).toEqual([
      ['0777', later, null],
      ['9998', today(), later],
    ]);
    expect(await cover(input)).toEqual({ restored: 0 });
  });

  it('fails clearly for an unknown entry', async () => {
    const { input } = await newParty();
    expect(await failure(register({ ...input, entryId: crypto.randomUUID() }))).toMatchObject({
      type: 'entry-not-found',
      nonRetryable: true,
    });
  });

  it('429 and 503 carry the Retry-After into the retry; a 422 fails the step with the PPF detail', async () => {
    const { siren, input } = await newParty();
    sim.setFaults({ status: 429, retryAfterSeconds: 3, detail: 'trop de requêtes pour ce client' });
    expect(await failure(register(input))).toMatchObject({
      type: 'annuaire-unavailable',
      nonRetryable: false,
      nextRetryDelay: 3000,
      message: expect.stringContaining('trop de requêtes pour ce client'),
    });
    sim.setFaults({ status: 503 });
    const unavailable = await failure(register(input));
    expect(unavailable).toMatchObject({ type: 'annuaire-unavailable', nonRetryable: false });
    expect(unavailable.nextRetryDelay).toBeUndefined(); // the activity's own backoff

    const detail = "la date de début d'effet doit être postérieure à la date du jour";
    sim.setFaults({ status: 422, only: 'POST /ligne-annuaire', detail });
    const refused = await failure(register(input));
    expect(refused).toMatchObject({
      type: 'annuaire-rejected',
      nonRetryable: true,
      message: `Annuaire 422: ${detail}`,
    });
    expect(refused.details).toEqual([
      { system: 'annuaire', status: 422, titre: 'Erreur de validation des données', detail },
    ]);
    // The 9998 line was ended before the refusal; a later run picks up from there (no line of ours yet).
    sim.setFaults(undefined);
    expect(await register(input)).toMatchObject({ lines: [{ created: true }] });
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '0145' })]);
  });

  it('a line of ours refused for good puts the SIREN back on the fictive platform, on a retry too', async () => {
    const { siren, input } = await newParty();
    const ours = `"siren":"${siren}","matriculePlateforme":"0145"`;
    sim.setFaults({ status: 422, only: 'POST /ligne-annuaire', bodyIncludes: ours, detail: 'SIREN fermé' });
    expect(await failure(register(input))).toMatchObject({ type: 'annuaire-rejected', nonRetryable: true });
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '9998' })]);

    // A retry that finds nothing in force (an earlier attempt ended 9998, then failed transiently) restores it too.
    const [restored] = inForce(siren);
    sim.setFaults(undefined);
    await disable(input); // nothing of ours: 9998 already covers it, left alone
    expect(inForce(siren)).toEqual([restored]);
    sim.setFaults([{ status: 503, only: 'POST /ligne-annuaire', count: TRIES }]); // every try of the call
    expect(await failure(register(input))).toMatchObject({ type: 'annuaire-unavailable', nonRetryable: false });
    expect(inForce(siren)).toEqual([]); // 9998 ended, ours not created
    sim.setFaults({ status: 422, only: 'POST /ligne-annuaire', bodyIncludes: ours, detail: 'SIREN fermé' });
    expect(await failure(register(input))).toMatchObject({ type: 'annuaire-rejected', nonRetryable: true });
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '9998' })]);
  });

  it('a 429/503 burst succeeds once retried as classified, with one line created', async () => {
    const { siren, input } = await newParty();
    sim.setFaults({ errorRates: { 429: 0.5, 503: 0.5 }, count: 4, retryAfterSeconds: 0 });
    let attempts = 0;
    let result: Awaited<ReturnType<typeof register>> | undefined;
    // What Temporal does with the step: try again while the failure is retryable.
    while (!result && attempts < 10) {
      attempts++;
      result = await register(input).catch((e: unknown) => {
        if (!(e instanceof ApplicationFailure) || e.nonRetryable) throw e;
        return undefined;
      });
    }
    expect(result!.lines).toMatchObject([{ created: true }]);
    expect(attempts).toBeGreaterThan(1);
    expect(inForce(siren)).toEqual([
      expect.objectContaining({ idInstance: line(result!), matriculePlateforme: '0145' }),
    ]);
    expect(linesOf(siren).filter((l) => l.matriculePlateforme === '0145')).toHaveLength(1);
  });

  it('two attempts of the step at once (a retry beside a slow first try) both end with the one line of ours', async () => {
    // Seen at 10,000 registrations: each attempt searched before either created; the later create was refused
    // (422, overlapping our own line) and failed the registration.
    const { siren, input } = await newParty();
    sim.setFaults({ latencyMs: 100 });
    const [a, b] = await Promise.all([register(input), register(input)]);
    expect(line(a)).toBe(line(b));
    expect([a.lines[0]!.created, b.lines[0]!.created].sort()).toEqual([false, true]);
    expect(inForce(siren)).toEqual([expect.objectContaining({ idInstance: line(a), matriculePlateforme: '0145' })]);
    expect(linesOf(siren).filter((l) => l.matriculePlateforme === '0145')).toHaveLength(1);
  });

  it('survives the gateway forgetting its token in the middle of a run', async () => {
    const { siren, input } = await newParty();
    sim.setFaults({ latencyMs: 150 });
    const revoke = setTimeout(() => sim.revokeTokens(), 200); // after the search, before the writes
    try {
      expect(await register(input)).toMatchObject({ lines: [{ created: true }] });
    } finally {
      clearTimeout(revoke);
    }
    expect(inForce(siren)).toEqual([expect.objectContaining({ matriculePlateforme: '0145' })]);
  });
});

describe('directory activities: every invoicing address', () => {
  let sim: AnnuaireSimulator;
  let db: Db;
  let drop: () => Promise<void>;
  let workspaceId: string;
  let acts: ReturnType<typeof directoryActivities>;
  let annuaire: ReturnType<typeof createClients>['annuaire'];

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    ({ db, drop } = await freshDb());
    workspaceId = (await createWorkspace(db, 'directory-addresses')).id;
    const config = loadConfig({
      DATA_DIR: path.join(os.tmpdir(), 'pa-test'),
      ANNUAIRE_URL: sim.url,
      PA_MATRICULE: '0145',
    });
    annuaire = createClients(config).annuaire;
    acts = directoryActivities({ db, log, config }, annuaire);
  });
  afterAll(async () => {
    await sim.close();
    await drop();
  });

  /** A party stating `addresses`, its mandate signed entrusting `signed` (all its addresses when not given). */
  async function partyWith(siren: string, addresses: unknown, signed?: InvoicingAddresses) {
    const entryId = crypto.randomUUID();
    await insertEntry(db, {
      id: entryId,
      workspaceId,
      docSchema: 'https://gobl.org/draft-0/org/party',
      data: party(siren),
      siren,
    });
    await putMeta(db, entryId, INVOICING_ADDRESSES_META, { src: 'api', value: addresses });
    await approveMandate(db, { entryId, invoicingAddresses: signed });
    const input: StepInput = { jobId: crypto.randomUUID(), workspaceId, entryId, stepId: 's1', config: {} };
    return { entryId, input };
  }
  const inForce = (siren: string) =>
    sim
      .lines()
      .filter(
        (l) =>
          l.siren === siren && l.dateDebutEffet <= today() && (l.dateFinEffet === null || today() < l.dateFinEffet),
      );

  it('creates the routing code, then one line per address on our matricule; run again, nothing more', async () => {
    const siren = makeSiren();
    const siret = siretOf(siren, '0001');
    const { input, entryId } = await partyWith(siren, {
      addresses: [
        {},
        { siret },
        { siret, routing_code: { id: 'SERVICE-ACHATS', label: 'Service achats' } },
        { suffix: 'FACTURES_EU' },
      ],
    });
    const first = await acts.register(input);
    const ids = [siren, `${siren}_${siret}`, `${siren}_${siret}_SERVICE-ACHATS`, `${siren}_FACTURES_EU`];
    expect(first.lines.map((l) => [l.address, l.created])).toEqual(ids.map((id) => [id, true]));
    expect(
      inForce(siren)
        .map((l) => [l.identifiantAdressage, l.matriculePlateforme, l.dateDebutEffet])
        .sort(),
    ).toEqual(ids.map((id) => [id, '0145', today()]).sort());
    expect(await annuaire.getRoutingCode(siret, 'SERVICE-ACHATS')).toMatchObject({
      libelleCodeRoutage: 'Service achats',
      etatAdministratif: 'A',
    });
    const again = await acts.register(input);
    expect(again.lines).toEqual(first.lines.map((l) => ({ ...l, created: false })));
    expect(sim.lines().filter((l) => l.siren === siren && l.matriculePlateforme === '0145')).toHaveLength(4);
    expect((await entryDirectoryLines(db, entryId)).map((l) => l.address).sort()).toEqual([...ids].sort());

    // Unregistering ends every line and puts the SIREN back on the fictive platform.
    const ended = await acts.disable(input);
    expect(ended.ended.sort()).toEqual(first.lines.map((l) => l.idInstance).sort());
    expect(inForce(siren).map((l) => [l.identifiantAdressage, l.matriculePlateforme])).toEqual([[siren, '9998']]);
    expect(await entryDirectoryLines(db, entryId)).toEqual([]);
  });

  it('refuses an address the signed mandate does not entrust, naming it, before writing anything', async () => {
    const siren = makeSiren();
    const siret = siretOf(siren, '0002');
    const { input } = await partyWith(
      siren,
      { addresses: [{}, { siret }] },
      { entrust: 'listed', addresses: [{ id: siren, siren }] },
    );
    const err = await acts.register(input).then(
      () => undefined,
      (e: unknown) => e as ApplicationFailure,
    );
    expect(err).toMatchObject({ type: 'address-not-entrusted', nonRetryable: true });
    expect(err!.message).toContain(`does not entrust ${siren}_${siret}`);
    expect(sim.lines().filter((l) => l.siren === siren && l.matriculePlateforme === '0145')).toEqual([]);
  });

  it('an update dropping the SIREN address puts it back on 9998, also when a crashed attempt had ended our line', async () => {
    const siren = makeSiren();
    const siret = siretOf(siren, '0003');
    const { input, entryId } = await partyWith(siren, { addresses: [{}, { siret }] });
    const registered = await acts.register(input);
    const sirenLine = registered.lines.find((l) => l.address === siren)!;
    await putMeta(db, entryId, INVOICING_ADDRESSES_META, { src: 'api', value: { addresses: [{ siret }] } });
    // A first attempt ended our SIREN line, then died before the 9998 line was created.
    await annuaire.endLine(sirenLine.idInstance, today());
    const updated = await acts.update({ ...input, jobId: crypto.randomUUID() });
    expect(updated.ended).toEqual([siren]);
    expect(
      inForce(siren)
        .map((l) => [l.identifiantAdressage, l.matriculePlateforme])
        .sort(),
    ).toEqual([
      [siren, '9998'],
      [`${siren}_${siret}`, '0145'],
    ]);
    // Run again: the 9998 line is not created twice.
    await acts.update({ ...input, jobId: crypto.randomUUID() });
    expect(inForce(siren).filter((l) => l.matriculePlateforme === '9998')).toHaveLength(1);
  });

  const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

  it('a later start: our lines start that day, the fictive line ends that day, and Peppol is told to wait', async () => {
    const siren = makeSiren();
    const siret = siretOf(siren, '0003');
    const start = inDays(10);
    const { input } = await partyWith(siren, { start, addresses: [{}, { siret }] });
    const r = await acts.register(input);
    expect(r).toMatchObject({ takesEffectOn: start, nextStepNotBefore: `${start}T00:00:00.000Z` });
    const lines = sim.lines().filter((l) => l.siren === siren);
    // Today the fictive platform still receives; from the start day, we do, without a day between.
    expect(inForce(siren).map((l) => [l.identifiantAdressage, l.matriculePlateforme])).toEqual([[siren, '9998']]);
    expect(lines.find((l) => l.matriculePlateforme === '9998')!.dateFinEffet).toBe(start);
    expect(
      lines
        .filter((l) => l.matriculePlateforme === '0145')
        .map((l) => [l.identifiantAdressage, l.dateDebutEffet])
        .sort(),
    ).toEqual([
      [siren, start],
      [`${siren}_${siret}`, start],
    ]);
    expect(await acts.register(input)).toEqual({
      ...r,
      lines: r.lines.map((l) => ({ ...l, created: false })),
    });
  });

  it('moving in at a switch day: every address the former platform held within the mandate is ours from that day', async () => {
    const siren = makeSiren();
    const [siretA, siretB] = [siretOf(siren, '0004'), siretOf(siren, '0005')];
    const former = [
      sim.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: '2025-01-01' }),
      sim.seedLine({ siren, siret: siretA, matriculePlateforme: '0042', dateDebutEffet: '2025-01-01' }),
      sim.seedLine({ siren, suffixeAdressage: 'ACHATS', matriculePlateforme: '0042', dateDebutEffet: '2025-06-01' }),
    ];
    const start = inDays(5);
    const { entryId, input } = await partyWith(siren, { start, addresses: [{}, { siret: siretB }] });
    await putMeta(db, entryId, 'fr-former-matricule', { src: 'api', value: '0042' });
    await db.query('UPDATE mandates SET signed_former_matricule = $1 WHERE entry_id = $2', ['0042', entryId]);
    const r = await acts.register(input);
    expect(r.takenOverFrom).toBe('0042');
    const all = sim.lines().filter((l) => l.siren === siren);
    for (const old of former) {
      const ended = all.find((l) => l.idInstance === old.idInstance)!;
      const ours = all.filter(
        (l) => l.matriculePlateforme === '0145' && l.identifiantAdressage === old.identifiantAdressage,
      );
      // No day uncovered, no overlap: theirs ends on the switch day, ours starts on it.
      expect([ended.dateFinEffet, ours.map((l) => l.dateDebutEffet)]).toEqual([start, [start]]);
    }
    expect(r.lines.map((l) => l.address).sort()).toEqual(
      [siren, `${siren}_${siretA}`, `${siren}_${siretB}`, `${siren}_ACHATS`].sort(),
    );
  });

  it('moving in with a mandate listing addresses: the former platform keeps the others', async () => {
    const siren = makeSiren();
    const siret = siretOf(siren, '0006');
    sim.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: '2025-01-01' });
    const kept = sim.seedLine({ siren, siret, matriculePlateforme: '0042', dateDebutEffet: '2025-01-01' });
    const { entryId, input } = await partyWith(
      siren,
      { entrust: 'listed', addresses: [{}] },
      {
        entrust: 'listed',
        addresses: [{ id: siren, siren }],
      },
    );
    await db.query('UPDATE mandates SET signed_former_matricule = $1 WHERE entry_id = $2', ['0042', entryId]);
    const r = await acts.register(input);
    expect(r.lines.map((l) => l.address)).toEqual([siren]);
    expect(sim.lines().find((l) => l.idInstance === kept.idInstance)!.dateFinEffet).toBeNull();
    expect(
      inForce(siren)
        .map((l) => [l.identifiantAdressage, l.matriculePlateforme])
        .sort(),
    ).toEqual([
      [siren, '0145'],
      [`${siren}_${siret}`, '0042'],
    ]);
  });
});

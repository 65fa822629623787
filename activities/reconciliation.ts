// The reconciliation's activities: the use cases of domain/reconciliation/ over the clients the worker built once.
// Reads of the Annuaire are paced to its quota, and a throttled one waits the Retry-After it was given and tries
// again, so that a night's run is not a storm of activity retries.
import { Context } from '@temporalio/activity';
import type { ReconciliationActivities } from '../contract/reconciliation';
import type { Clients } from '../integrations/clients';
import { frenchParticipantId, formatParticipantId } from '../integrations/peppol/participant-id';
import { smlRegistry } from '../integrations/peppol/sml-registry';
import { smlRegistration } from '../domain/peppol/sml-registration';
import { peppolContext } from './peppol';
import { actOnFindings } from '../domain/reconciliation/act';
import type { ReconciliationPorts, ReconciliationSettings } from '../domain/reconciliation/ports';
import { beginRun, endRun, runFacts } from '../domain/reconciliation/run';
import { scanDirectoryPages, scanUnseenLines, type ScanContext } from '../domain/reconciliation/scan-directory';
import { scanSmlPages, scanUnseenParticipants } from '../domain/reconciliation/scan-sml';
import { reconciliationActions, reconciliationFindings } from '../platform/observability/metrics';
import { durationMs } from '../contract/duration';
import type { ActivityDeps } from './deps';
import { withTemporalFailures } from './remote-failure';
import { withHeartbeat } from './heartbeat';
import { pacer } from './pacing';

/** Pages an activity reads before it hands back its cursor: 10,000 lines, a few minutes at most, a short history. */
const PAGES_PER_ACTIVITY = 100;
const LOOKUPS_PER_ACTIVITY = 200;

export function reconciliationActivities(deps: ActivityDeps, clients: Clients): ReconciliationActivities {
  const { config, db, log } = deps;
  const settings: ReconciliationSettings = {
    matricule: config.PA_MATRICULE,
    ourSmpUrl: config.smpPublicUrl,
    reportOnlyNights: config.RECONCILE_REPORT_ONLY_NIGHTS,
    agreeAfterMs: durationMs(config.RECONCILE_AGREE_AFTER),
    lookbackDays: config.RECONCILE_LOOKBACK_DAYS,
  };
  const paced = pacer(1000 / config.RECONCILE_ANNUAIRE_RPS);
  const annuaire = clients.annuaire;
  const sml = smlRegistry(clients.sml);
  // As an unregistration removes a participant: gone already, or another SMP's now, counts as removed.
  const registration = smlRegistration(peppolContext(deps, clients));
  const ports: ReconciliationPorts = {
    directory: {
      matriculePage: ({ matricule, from, offset, limit }) =>
        paced(() =>
          annuaire.searchPage({ matriculePlateforme: matricule, dateDebutRecherche: from }, { offset, limit }),
        ),
      sirenLines: (siren, from) =>
        paced(() => annuaire.searchLines({ siren, dateDebutRecherche: from, modeAudit: true })),
      companyState: async (siren) => (await paced(() => annuaire.getCompany(siren)))?.etatAdministratif,
    },
    sml: { listPage: (next) => clients.sml.listPage(next), smpUrls: (id) => clients.smlDns.smpUrls(id) },
    peppol: {
      removeFromDirectory: (id) => clients.directory.remove(id),
      deleteFromSml: (id) => registration.remove(id),
      createAtSml: async (id) => {
        try {
          await sml.create(id);
        } catch (err) {
          if (!sml.refusal(err)?.alreadyExists) throw err;
        }
      },
    },
  };
  const scan = async (runId: string): Promise<ScanContext> => {
    const facts = await runFacts(db, settings, runId);
    return { db, log, directory: ports.directory, settings, runId, ...facts };
  };
  const beat = () => Context.current().heartbeat();
  // Between the beats its pages give, a long read beats on a timer too.
  const beating = <T>(read: () => Promise<T>): Promise<T> => withHeartbeat(read)();
  return {
    reconcileBegin: ({ runId, reportOnly }) =>
      withTemporalFailures(async () => {
        const run = await beginRun(db, settings, runId, { reportOnly });
        log.info({ runId, reportOnly: run.report_only }, 'reconciliation run begins');
        return { reportOnly: run.report_only };
      }),
    reconcileDirectoryPages: ({ runId, offset }) =>
      beating(() =>
        withTemporalFailures(async () => {
          const r = await scanDirectoryPages(await scan(runId), offset, PAGES_PER_ACTIVITY, beat);
          return r.next === undefined ? {} : { next: r.next };
        }),
      ),
    reconcileUnseenLines: ({ runId, after }) =>
      beating(() =>
        withTemporalFailures(async () => {
          const next = await scanUnseenLines(await scan(runId), after, LOOKUPS_PER_ACTIVITY, beat);
          return next === undefined ? {} : { next };
        }),
      ),
    reconcileSmlPages: ({ runId, next }) =>
      beating(() =>
        withTemporalFailures(async () => {
          const ctx = { db, log, runId, sml: ports.sml, settings };
          return scanSmlPages(ctx, next, PAGES_PER_ACTIVITY, beat);
        }),
      ),
    reconcileUnseenParticipants: ({ runId, after }) =>
      beating(() =>
        withTemporalFailures(async () => {
          const ctx = { db, log, runId, sml: ports.sml, settings };
          const next = await scanUnseenParticipants(ctx, after, LOOKUPS_PER_ACTIVITY, beat);
          return next === undefined ? {} : { next };
        }),
      ),
    reconcileAct: ({ runId, after }) =>
      beating(() =>
        withTemporalFailures(async () => {
          const { day } = await runFacts(db, settings, runId);
          const participantOf = (address: string) => formatParticipantId(frenchParticipantId(address));
          const ctx = { db, log, peppol: ports.peppol, runId, day, agreeAfterMs: settings.agreeAfterMs, participantOf };
          return actOnFindings(ctx, after, beat);
        }),
      ),
    reconcileEnd: ({ runId, failed, actions }) =>
      withTemporalFailures(async () => {
        const run = await endRun(db, runId, failed ? 'failed' : 'done', actions);
        for (const [kind, n] of Object.entries(run.counts)) reconciliationFindings.inc({ kind }, n);
        for (const [outcome, n] of Object.entries(actions)) reconciliationActions.inc({ outcome }, n);
        log.info({ runId, status: run.status, counts: run.counts, actions }, 'reconciliation run ends');
        return {
          runId,
          reportOnly: run.report_only,
          lines: run.lines_read,
          participants: run.participants_read,
          requests: run.requests,
          counts: run.counts,
          actions: run.actions,
        };
      }),
  };
}

// `npm start`: the whole embedded stack in one process tree — Temporal dev server (SQLite under data/, UI),
// PGlite store, simulators, HTTP API and worker. Ctrl-C stops everything, at any moment, start-up included (exit 0
// once started, 130/143 when it interrupts the start-up); data survives restarts.
import { sealKeyFromConfig } from '../domain/mandate-document/seal-key';
import { dataBoxFromConfig } from '../platform/crypto/data-box';
import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { createApp } from '../api/app';
import type { DecisionPolicy } from '../domain/review/decision-policy';
import { signingDeps } from '../api/signing-deps';
import { runChecksAgain } from '../domain/mandate/recheck';
import { runQueuedJobSweeper } from '../domain/jobs/job-sweeper';
import { runWebhookDispatcher } from '../domain/events/dispatch';
import { ensureSchedules } from '../domain/schedules';
import { assertApiConfigSafe, loadConfig } from '../platform/config';
import { serveInternalMetrics } from '../api/metrics-endpoint';
import { createLogger } from '../platform/observability/logger';
import { simulatorFaultsFromEnv, simulatorSettingsFromEnv, startSimulators } from '../simulators';
import { SCOPES, createApiKey, createWorkspace, findApiKey } from '../platform/store/workspaces';
import type { Db } from '../platform/store/db';
import { findTemporalCli } from './stack/cli';
import { startDevServer } from './stack/dev-server';
import { ensureDevOperators } from './stack/dev-operators';
import { bundleWorkflowsOffThread } from './stack/bundle-thread';
import { lifecycle, type Lifecycle } from './stack/lifecycle';
import { createWorker, installSdkMetrics } from '../worker/create-worker';
import { makeCurrent } from '../worker/versioning';
import { connectTemporal, openStore, temporalConnectionOptions, withSecrets } from './context';
import { tracingFromEnv } from '../platform/observability/tracing';
import { InspectionPool, poolOptions } from '../domain/inspection';
import { answerMalformedRequests } from '../web/http/malformed-requests';

const say = (msg: string) => console.log(`[start] ${msg}`);

/**
 * Stopping is clean at any moment (bin/stack/lifecycle.ts): each part registers its stop as it starts; a SIGINT or
 * SIGTERM during start-up interrupts it (exit 130/143) after stopping, in reverse order, what had started.
 */
async function main(life: Lifecycle) {
  const { signal } = life;
  let config = loadConfig();
  assertApiConfigSafe(config);
  const log = createLogger(config.LOG_LEVEL);
  fs.mkdirSync(config.dataDir, { recursive: true });

  const cli = findTemporalCli(config.TEMPORAL_CLI);
  say(`Temporal dev server (${cli}), history in ${path.join(config.dataDir, 'temporal.db')}`);
  const temporalServer = await startDevServer({
    cli,
    dbFile: path.join(config.dataDir, 'temporal.db'),
    address: config.TEMPORAL_ADDRESS,
    uiPort: config.TEMPORAL_UI_PORT,
    namespace: config.TEMPORAL_NAMESPACE,
    logFile: path.join(config.dataDir, 'temporal.log'),
    signal,
  });
  life.onStop('Temporal dev server', () => temporalServer.stop());
  say(`Temporal dev server up (pid ${temporalServer.pid}, process group ${temporalServer.processGroup})`);
  life.check();

  // PGlite (WebAssembly) holds the event loop while it opens and migrates: a signal is taken once it is done.
  const db = await openStore(config, say);
  life.onStop('store', () => db.close());
  life.check();
  config = await withSecrets(config, db, say);
  const devKeyFile = path.join(config.dataDir, 'dev-api-key');
  const devKey = await ensureDevApiKey(db, devKeyFile);
  const devOperators = await ensureDevOperators(db, config.dataDir);
  life.check();

  const faults = simulatorFaultsFromEnv();
  // Said once at start, so that failures met later are not mistaken for bugs.
  for (const [sim, setting] of Object.entries(faults))
    if (setting) say(`fault injection on in the ${sim} simulator: ${JSON.stringify(setting)}`);
  const simulators = await startSimulators({
    host: config.SIMULATORS_HOST,
    ports: {
      annuaire: config.ANNUAIRE_SIM_PORT,
      sml: config.SML_SIM_PORT,
      directory: config.PEPPOL_DIRECTORY_SIM_PORT,
      smlDns: config.SML_SIM_DNS_PORT,
      recherche: config.RECHERCHE_ENTREPRISES_SIM_PORT,
    },
    stateDir: path.join(config.dataDir, 'simulators'),
    faults,
    smpUrl: config.smpPublicUrl,
    smpId: config.SMP_ID,
    annuaire: simulatorSettingsFromEnv(),
  });
  life.onStop('simulators', () => simulators.close());
  life.check();

  const tracing = tracingFromEnv('pa-party-registration');
  installSdkMetrics(config.TEMPORAL_METRICS_ADDRESS); // before the first native connection
  const temporal = await connectTemporal(config, tracing);
  life.onStop('Temporal client', () => temporal.connection.close());
  // Uploaded files are decoded and checked in these child processes, off the event loop.
  const inspector = new InspectionPool(poolOptions(config));
  life.onStop('inspection pool', () => inspector.close());
  life.check();
  const jobDeps = {
    db,
    log,
    temporal,
    config,
    box: dataBoxFromConfig(config),
    sealKey: sealKeyFromConfig(config),
    inspector,
  };
  const signing = signingDeps(jobDeps);
  const app = createApp({ ...jobDeps, signing });
  await ensureSchedules(jobDeps);
  const stopSweeper = runQueuedJobSweeper(jobDeps);
  const stopDispatcher = runWebhookDispatcher(jobDeps);
  const stopRecheck = runChecksAgain(signing);
  life.onStop('job sweeper, webhook dispatcher and director re-checks', () => {
    stopSweeper();
    stopDispatcher();
    stopRecheck();
  });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.API_PORT, config.API_HOST, () => resolve(s));
    s.once('error', reject);
    answerMalformedRequests(s);
  });
  life.onStop('API server', () => new Promise((resolve) => server.close(resolve)));
  const metricsServer = await serveInternalMetrics(config);
  if (metricsServer) life.onStop('metrics server', () => new Promise((resolve) => metricsServer.close(resolve)));
  life.check();

  say('bundling workflows and starting the worker…');
  const workerConnection = await NativeConnection.connect(temporalConnectionOptions(config));
  life.onStop('worker connection', () => workerConnection.close());
  life.check();
  const { worker, buildId } = await createWorker({
    connection: workerConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: { db, log, config },
    tracing,
    // Off the main thread, so that a signal is taken at once and ends the bundling.
    bundle: (withTracing) => bundleWorkflowsOffThread(withTracing, signal),
  });
  const running = worker.run();
  life.onStop('worker', async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined); // its error, if any, is logged below
  });
  // A worker that fails on its own takes the stack down with it, in order, rather than leaving an API whose jobs
  // never run.
  running.then(
    () => void life.stop('the worker stopped', 1), // unless stopping already: then ignored
    (err) => {
      log.error({ err }, 'the worker failed');
      void life.stop('the worker failed', 1);
    },
  );
  // The embedded stack runs one build: it is the current one (the runs of an earlier build move to it, or stay
  // pinned to theirs: README).
  await makeCurrent(workerConnection, {
    namespace: config.TEMPORAL_NAMESPACE,
    deploymentName: config.TEMPORAL_DEPLOYMENT_NAME,
    buildId,
    signal,
  });
  life.check();

  console.log(`
  API            ${config.publicBaseUrl}   (try: curl ${config.publicBaseUrl}/utils/v1/ping)
  Review page    ${config.publicBaseUrl}/apps/gov-fr/review/   (operators sign in with a credential below)
  Temporal UI    ${temporalServer.uiUrl}
  Temporal gRPC  ${config.TEMPORAL_ADDRESS}   (namespace ${config.TEMPORAL_NAMESPACE}, task queue ${config.TEMPORAL_TASK_QUEUE}, build ${buildId} of ${config.TEMPORAL_DEPLOYMENT_NAME})
  Our SMP        ${config.smpPublicUrl}
  Simulators     Annuaire ${simulators.annuaire.url}, SML ${simulators.sml.endpoint} (DNS ${simulators.sml.dnsAddress}:${simulators.sml.dnsPort}, zone ${simulators.sml.dnsZone}), Peppol Directory ${simulators.directory.url}, API Recherche d'entreprises ${simulators.recherche.url}
  Decisions      ${policySummary(signing.decisionPolicy, signing.trustAnchors.length, config.AUTO_APPROVE)}
  Dev API key    ${masked(devKey)}   (an integrator's; the key itself: ${devKeyFile})
${devOperators.map((o) => `  Dev operator   ${masked(o.credential)}   (${o.name}: ${o.roles.join(', ')}; the credential itself: ${o.file})`).join('\n')}
  Data           ${config.dataDir}
  Ctrl-C stops everything.
`);
  life.ready();
}

/** The decision policy as the start says it: automatic rules, their window, the CAs trusted; four eyes. */
function policySummary(p: DecisionPolicy, anchors: number, sandbox: boolean): string {
  const auto = p.auto_approve.length
    ? `${p.auto_approve.length} automatic rule(s) (${p.auto_approve.map((r) => r.rule).join(', ')}; overturn window ${p.overturn_window}; ${anchors} trusted CA(s))`
    : 'every submission to an operator';
  return `policy version ${p.version}: ${auto}; four eyes on ${p.second_approval.join(', ') || 'none'}${sandbox ? ' (all off: AUTO_APPROVE)' : ''}`;
}

/** The key's prefix (as `npm run key:list` shows it): the log is no place for a secret, it is copied around. */
const masked = (key: string) => `${key.slice(0, 8)}…`;

/** The development key is kept in data/ so that every start uses the same one. */
async function ensureDevApiKey(db: Db, file: string): Promise<string> {
  if (fs.existsSync(file)) {
    const secret = fs.readFileSync(file, 'utf8').trim();
    if (await findApiKey(db, secret)) return secret;
  }
  const ws = await createWorkspace(db, 'development');
  // The development workspace's key: every scope (deciding is the dev operators'; ensureDevOperators).
  const { secret } = await createApiKey(db, ws.id, { name: 'development', scopes: [...SCOPES] });
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

// First of all: from here on, a signal stops what has started.
const life = lifecycle(say, (msg) => console.error(`[start] ${msg}`));
main(life).catch((err) => life.fail(err));

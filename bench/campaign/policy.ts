// `npm run bench:campaign -- --part policy --parties N [--concurrency C] [--server dev|real] [--register-rate R]`: a
// campaign of N companies (1,000) under a decision policy that approves automatically a digital signature whose
// trusted certificate names a listed director. Two signers in three are among their company's directors in the public
// register (the API Recherche d'entreprises simulator, limited to R requests a second per address: 7, the real one's;
// the client paced at R too); each signer signs digitally with a certificate from a CA the platform trusts, C at a
// time, and confirms. Prints the share approved automatically (of all, and of those a director signed), the time from
// each confirmation to its automatic decision (at once, or after a background re-check when the register's limit left
// the check unanswered), and the director checks as they stand. The others go to the operators: none decided here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ownDevServer, startCluster } from '../../bin/stack/cluster';
import { startTemporalServer } from '../../bin/stack/temporal-server';
import { pool, signDigitallyAndConfirm, sirens, waitUntil } from '../../bin/stack/onboard';
import { testCa } from '../../bin/stack/signing-ca';
import { campaignEntryIds, submissionDecisions } from '../../platform/store/stats';
import { startedCampaign } from './started-campaign';

const { values } = parseArgs({
  strict: false,
  options: {
    parties: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '32' },
    server: { type: 'string', default: 'dev' },
    // The public register's limit per address, and our client's pace (RECHERCHE_ENTREPRISES_RATE): 7, the real one's.
    'register-rate': { type: 'string', default: '7' },
  },
});
const N = Number(values.parties);
const C = Number(values.concurrency);
const REAL = values.server === 'real';
const REGISTER_RATE = Number(values['register-rate']);
if (!Number.isInteger(N) || N < 3 || !Number.isInteger(C) || C < 1 || !(REGISTER_RATE > 0))
  throw new Error('--parties (≥ 3) and --concurrency take positive integers, --register-rate a positive number');
const say = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const timeoutMs = 300_000 + N * 300;
/** The i-th company's signer is not among its directors: one in three. */
const notDirector = (i: number) => i % 3 === 0;

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${(await res.text()).slice(0, 300)}`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-policy-'));
const ca = testCa('Bench Qualified CA');
const policy = path.join(dir, 'policy.json');
fs.writeFileSync(
  policy,
  JSON.stringify({
    version: 1,
    second_approval: ['takeover', 'scan', 'name-mismatch', 'not-active'],
    overturn_window: '0s',
    auto_approve: [
      { rule: 'director-certificate', when: ['certificate-names-director', 'name-matches', 'company-active'] },
    ],
  }),
);
say(`starting ${REAL ? 'the Temporal server on PostgreSQL' : 'a Temporal dev server'} and the cluster`);
const temporal = REAL
  ? await startTemporalServer({ databasePrefix: 'bench_policy' })
  : await ownDevServer(dir, { inMemory: true });
const cluster = await startCluster({
  temporalAddress: temporal.address,
  env: {
    DECISION_POLICY_FILE: policy,
    RECHERCHE_ENTREPRISES_RATE: String(REGISTER_RATE),
    SIGNATURE_TRUST_ANCHORS_FILE: ca.file,
    RECONCILE_CRON: 'off',
    ANNUAIRE_STEPS_PER_S: '1000',
    PEPPOL_STEPS_PER_S: '1000',
    CAMPAIGN_ANNUAIRE_RPS: '1000',
    CAMPAIGN_DNS_RPS: '1000',
    CAMPAIGN_LAUNCH_PER_S: '200',
  },
});
cluster.sims.recherche.setRateLimit(REGISTER_RATE);
try {
  const companies = sirens(N);
  const name = (i: number) => `Société ${i}`;
  say(`seeding the Annuaire and the public register for ${N} companies`);
  await post(
    `${new URL(cluster.sims.annuaire.url).origin}/_simulator/companies:bulk`,
    companies.map((siren, i) => ({ siren, raisonSociale: name(i).toUpperCase() })),
  );
  await post(
    `${cluster.sims.recherche.url}/_simulator/companies:bulk`,
    companies.map((siren, i) => ({
      siren,
      nom_raison_sociale: name(i).toUpperCase(),
      dirigeants: [
        notDirector(i)
          ? { type_dirigeant: 'personne physique', prenoms: 'Paul', nom: 'DURAND', qualite: 'Président' }
          : { type_dirigeant: 'personne physique', prenoms: 'Élodie', nom: 'MARTIN', qualite: 'Présidente' },
      ],
    })),
  );
  const rows = companies.map((s, i) => `${s};${name(i)};Élodie;Martin;Présidente;c${i}@example.fr;X4RTBPFW4`);
  const id = await startedCampaign(cluster, rows, timeoutMs);
  const entryIds = await campaignEntryIds(cluster.db, id);
  const key = ca.issue({ given: 'Élodie', surname: 'Martin' });
  say(`${N} waiting for their signers; each signs digitally and confirms, ${C} at a time`);
  const t0 = Date.now();
  await pool(entryIds, C, (entryId) => signDigitallyAndConfirm(cluster, entryId, key));
  const signing = (Date.now() - t0) / 1000;
  const eligible = companies.filter((_, i) => !notDirector(i)).length;
  const automatic = async () => (await submissionDecisions(cluster.db, entryIds)).filter((d) => d.automatic).length;
  say(`all confirmed in ${signing.toFixed(1)} s; waiting for the background re-checks (up to ${eligible} automatic)`);
  // Re-checks run every 30 s: settled when every eligible one is decided, or after 3 rounds without progress.
  let last = -1;
  let still = 0;
  await waitUntil(
    async () => {
      const n = await automatic();
      still = n === last ? still + 1 : 0;
      last = n;
      return n >= eligible || still >= 9;
    },
    timeoutMs,
    'the automatic decisions',
    10_000,
  );
  const decisions = await submissionDecisions(cluster.db, entryIds);
  const auto = decisions.filter((d) => d.automatic);
  const ms = auto.map((d) => d.ms!).sort((a, b) => a - b);
  const atOnce = ms.filter((m) => m < 5_000).length;
  const by = (r: string) => decisions.filter((d) => d.signer === r).length;
  console.log(`
npm run bench:campaign -- --part policy --parties ${N} --concurrency ${C} --server ${REAL ? 'real' : 'dev'} --register-rate ${REGISTER_RATE}   (Node ${process.version}, ${os.cpus().length} CPUs; the public register limited to ${REGISTER_RATE} requests/s per address, the client paced at RECHERCHE_ENTREPRISES_RATE=${cluster.config.RECHERCHE_ENTREPRISES_RATE})
  confirmed          ${decisions.length} of ${N} in ${signing.toFixed(1)} s (${(decisions.length / signing).toFixed(1)} a second)
  approved automatically  ${auto.length} (${((100 * auto.length) / N).toFixed(1)} % of all; ${((100 * auto.length) / eligible).toFixed(1)} % of the ${eligible} a director signed)
  confirmation → automatic decision: p50 ${percentile(ms, 0.5)?.toFixed(0)} ms, p95 ${percentile(ms, 0.95)?.toFixed(0)} ms, max ${ms.at(-1)?.toFixed(0)} ms; ${atOnce} within 5 s (at confirmation), ${auto.length - atOnce} after a re-check
  director checks now: pass ${by('pass')}, fail ${by('fail')}, unavailable ${by('unavailable')} (fail and unavailable: to the operators)
`);
} finally {
  await cluster.close();
  await temporal.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

// `npm run bench:campaign -- --rows N [--rate R]`: a campaign's dry run over a file of N companies (100,000), on the
// production topology (API and worker processes, PostgreSQL, a Temporal dev server; the simulators in a process of
// their own, the Annuaire limited to R requests/s, 100). The file is made of every kind of company: most on the
// fictive platform, a tenth held by another platform, some unknown to the Annuaire, some published at another SMP,
// a few rows twice, a few with faults. It is uploaded as an integrator would, streamed.
// The floor is the Annuaire's quota: the rows can be judged no faster than R of its requests a second. It prints the
// requests per row by system, the wall time from the upload to the last verdict against requests ÷ R (goal ≤ 1.1×),
// and each process's peak RSS (goal ≤ 512 MB). `--part registered`: a campaign to `registered` against the same
// companies one at a time (bench/campaign/registered.ts). `--part policy`: a campaign's automatic approvals under a
// decision policy (bench/campaign/policy.ts).
import { fork } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ownDevServer, startCluster } from '../bin/stack/cluster';
import { memoryMb } from '../bin/stack/service-process';
import { makeSiren } from '../bin/stack/sample-parties';

const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'dry-run' },
    rows: { type: 'string', default: '100000' },
    rate: { type: 'string', default: '100' },
    // --part registered's (bench/campaign/registered.ts)
    parties: { type: 'string' },
    concurrency: { type: 'string' },
    server: { type: 'string' },
    // --part policy's (bench/campaign/policy.ts)
    'register-rate': { type: 'string' },
  },
});
if (values.part === 'registered' || values.part === 'policy') {
  await import(`./campaign/${values.part}`);
  process.exit(0);
}
if (values.part !== 'dry-run') throw new Error('--part takes dry-run, registered or policy');
const N = Number(values.rows);
const RATE = Number(values.rate);
if (!Number.isInteger(N) || N < 10 || !(RATE > 0))
  throw new Error('--rows takes an integer ≥ 10, --rate a positive number');
const say = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${(await res.text()).slice(0, 300)}`);
}

const simulators = fork(new URL('./reconcile/simulators.ts', import.meta.url).pathname, {
  execArgv: ['--import', 'tsx'],
});
const simEnv = await new Promise<Record<string, string>>((resolve) => simulators.once('message', resolve as never));
const temporal = await ownDevServer(os.tmpdir(), { inMemory: true });
const cluster = await startCluster({
  temporalAddress: temporal.address,
  env: {
    ...simEnv,
    RECONCILE_CRON: 'off',
    CAMPAIGN_ANNUAIRE_RPS: String(RATE),
    CAMPAIGN_DNS_RPS: '1000',
    CAMPAIGN_MAX_ROWS: String(Math.max(N, 500_000)),
  },
});
try {
  const annuaire = new URL(simEnv.ANNUAIRE_URL!).origin;
  const sml = simEnv.SML_URL!;
  const sirens = new Set<string>();
  while (sirens.size < N) sirens.add(makeSiren());
  const all = [...sirens];
  const kind = (i: number) =>
    i % 10 === 1 ? 'takeover' : i % 50 === 2 ? 'unknown' : i % 20 === 3 ? 'migrate' : i % 200 === 4 ? 'fault' : 'new';
  say(`seeding the simulators for ${N} rows`);
  const held = all.filter((_, i) => kind(i) === 'takeover');
  for (let i = 0; i < held.length; i += 20_000)
    await post(
      `${annuaire}/_simulator/lines:bulk`,
      held.slice(i, i + 20_000).map((siren) => ({ siren, matriculePlateforme: '0099', dateDebutEffet: '2026-09-01' })),
    );
  const unknown = all.filter((_, i) => kind(i) === 'unknown');
  await post(
    `${annuaire}/_simulator/companies:bulk`,
    unknown.map((siren) => ({ siren, known: false })),
  );
  const migrating = all.filter((_, i) => kind(i) === 'migrate');
  await post(`${sml}/_simulator/participants`, {
    smpId: 'OTHER-SMP',
    participants: migrating.map((s) => `iso6523-actorid-upis::0225:${s}`),
  });
  const limited = await fetch(`${annuaire}/_simulator/settings`, {
    method: 'PUT',
    body: JSON.stringify({ rateLimitPerSecond: RATE }),
  });
  if (!limited.ok) throw new Error(`the Annuaire simulator's rate limit: ${limited.status}`);

  const header = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email;former_platform';
  const lines = all.map((siren, i) =>
    kind(i) === 'fault'
      ? `${siren};;Jean;Dupont;Gérant;not-an-email;`
      : `${siren};Société ${i};Élodie;Martin;Présidente;contact.${i}@example.fr;${kind(i) === 'takeover' && i % 20 === 1 ? '0099' : ''}`,
  );
  // A few companies twice, as a merged export would have them.
  for (let i = 0; i < N / 1000; i++) lines.push(lines[i * 7]!);
  const file = `${header}\n${lines.join('\n')}\n`;
  const api = cluster.apiUrls[0]!;
  const auth = { authorization: `Bearer ${cluster.apiKey}` };
  say(`uploading ${lines.length} rows (${(Buffer.byteLength(file) / 1e6).toFixed(1)} MB)…`);
  const start = Date.now();
  const uploaded = await fetch(`${api}/campaigns/v1/campaigns`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'text/csv' },
    body: file,
  });
  const campaign = (await uploaded.json()) as { id: string; status: string };
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(campaign)}`);
  const uploadS = (Date.now() - start) / 1000;
  say(`uploaded in ${uploadS.toFixed(1)} s; the dry run judges the rows (the Annuaire simulator at ${RATE}/s)…`);
  const checkStart = Date.now();
  let view: {
    status: string;
    counts: Record<string, number>;
    dry_run: { rows_judged: number; requests: { annuaire: number; dns: number } };
  };
  for (;;) {
    view = (await (await fetch(`${api}/campaigns/v1/campaigns/${campaign.id}`, { headers: auth })).json()) as never;
    if (view.status === 'checked') break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const wallS = (Date.now() - checkStart) / 1000;
  const req = view.dry_run.requests;
  const floorS = req.annuaire / RATE;
  const rss = {
    api: cluster.apis[0]!.peakRssMb(),
    worker: cluster.workers[0]!.peakRssMb(),
    simulators: memoryMb(simulators.pid!, 'VmHWM'),
  };
  const f = (n: number, d = 3) => n.toFixed(d);
  console.log(`
dry run of ${lines.length} rows (${view.dry_run.rows_judged} looked up; the others with faults)
  verdicts        ${JSON.stringify(view.counts)}
  upload          ${f(uploadS, 1)} s
  requests        annuaire ${req.annuaire} (${f(req.annuaire / lines.length, 4)} a row), dns ${req.dns} (${f(req.dns / lines.length, 4)} a row)
  wall time       ${f(wallS, 1)} s; floor (annuaire requests ÷ ${RATE}/s) ${f(floorS, 1)} s: ratio ${f(wallS / floorS, 3)} (goal ≤ 1.1)
  peak RSS (MB)   ${Object.entries(rss)
    .map(([k, v]) => `${k} ${v === undefined ? '?' : v.toFixed(0)}`)
    .join(', ')} (goal ≤ 512 each)
`);
} finally {
  await cluster.close();
  await temporal.stop();
  simulators.disconnect();
}

// `npm run trial:campaign -- --rows 2000 [--out campaign.csv]`: for a trial on a running stack, a campaign file of
// N companies holding every verdict, and the simulators told the others' side of it through their control (outside
// the Annuaire's and the SML's APIs): a tenth held by platform 0099, some at another SMP, some ceased, some unknown to
// the Annuaire, some with another platform's line to come, a few already on our matricule, a few rows twice and a
// few with faults. The integrator then uploads the file as the README says (Campaigns).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { makeSiren } from './stack/sample-parties';

const USAGE =
  'usage: npm run trial:campaign -- [--rows N (default 2000)] [--out campaign.csv] [--matricule 0145] [--annuaire http://127.0.0.1:8091] [--sml http://127.0.0.1:8092]';

function args() {
  try {
    return parseArgs({
      options: {
        rows: { type: 'string', default: '2000' },
        out: { type: 'string', default: 'campaign.csv' },
        matricule: { type: 'string', default: '0145' },
        annuaire: { type: 'string', default: 'http://127.0.0.1:8091' },
        sml: { type: 'string', default: 'http://127.0.0.1:8092' },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}
const values = args();
const N = Number(values.rows);
if (!Number.isInteger(N) || N < 20 || N > 500_000) {
  console.error(USAGE);
  process.exit(2);
}

/** What the i-th company will be found to be. */
const KINDS = ['takeover', 'migrate', 'ceased', 'unknown', 'chosen-other', 'ours', 'fault', 'twice'] as const;
type Kind = (typeof KINDS)[number] | 'new';
const kindOf = (i: number): Kind =>
  i % 10 === 1
    ? 'takeover'
    : i % 20 === 2
      ? 'migrate'
      : i % 50 === 3
        ? 'ceased'
        : i % 50 === 4
          ? 'unknown'
          : i % 50 === 5
            ? 'chosen-other'
            : i % 100 === 6
              ? 'ours'
              : i % 100 === 7
                ? 'fault'
                : i % 100 === 8
                  ? 'twice'
                  : 'new';

async function call(method: string, url: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${(await res.text()).slice(0, 300)}`);
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const sirens = Array.from({ length: N }, () => makeSiren());
const of = (kind: Kind) => sirens.filter((_, i) => kindOf(i) === kind);
const A = values.annuaire;
const line = (siren: string, matriculePlateforme: string, dateDebutEffet: string, dateFinEffet?: string) => ({
  siren,
  matriculePlateforme,
  dateDebutEffet,
  ...(dateFinEffet && { dateFinEffet }),
});
await call('POST', `${A}/_simulator/lines:bulk`, [
  ...of('takeover').map((s) => line(s, '0099', '2026-09-01')),
  ...of('ours').map((s) => line(s, values.matricule, '2026-09-01')),
  ...of('chosen-other').flatMap((s) => [line(s, '9998', '2026-09-01', day(10)), line(s, '0077', day(10))]),
]);
await call(
  'POST',
  `${A}/_simulator/companies:bulk`,
  of('unknown').map((siren) => ({ siren, known: false })),
);
for (const siren of of('ceased')) await call('POST', `${A}/_simulator/companies/${siren}/cessation`, {});
await call('PUT', `${values.sml}/_simulator/smps/OTHER-SMP`, { url: 'https://smp.other-provider.example' });
await call('POST', `${values.sml}/_simulator/participants`, {
  smpId: 'OTHER-SMP',
  participants: of('migrate').map((s) => `0225:${s}`),
});

const header =
  'siren;name;signer_given_name;signer_surname;signer_role;contact_email;signer_id_number;city;sirets;former_platform';
const rows = sirens.flatMap((siren, i) => {
  const kind = kindOf(i);
  const email = kind === 'fault' ? 'jean.dupont(at)example.fr' : `contact.${i}@example.fr`;
  const former = kind === 'takeover' && i % 20 === 1 ? '0099' : '';
  const row = `${siren};Entreprise ${i + 1} SAS;Élodie;Martin;Présidente;${email};;Lyon;;${former}`;
  return kind === 'twice' ? [row, row] : [row];
});
fs.writeFileSync(values.out, `${header}\n${rows.join('\n')}\n`);
const counts = Object.fromEntries(['new', ...KINDS].map((k) => [k, of(k as Kind).length]));
console.log(`${values.out}: ${rows.length} rows (${JSON.stringify(counts)}); the simulators know their side.
Upload it:
  curl -X POST localhost:8080/campaigns/v1/campaigns -H "Authorization: Bearer $(cat data/dev-api-key)" \\
    -H 'content-type: text/csv' --data-binary @${values.out}`);

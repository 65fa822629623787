// `npm run trial:submissions -- --parties 150 [--key <pak_…> …]`: fills the operators' queue of a running stack
// through the API, as integrators would: for each workspace key (the development key by default), N companies, each
// registered, its signer's identity uploaded, signed in the app and confirmed, so that each waits for a decision.
// The Annuaire simulator is told each company first (its control, outside the Annuaire's API): most as declared,
// some under another name (four eyes: a name mismatch), some ceased (four eyes: not active).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { party } from './stack/sample-parties';
import { b64, jpeg, png } from './stack/sample-images';
import { pool, sirens } from './stack/onboard';
import { sentAgainWhenBusy } from './stack/retry-after';
import { REGISTRATION_WORKFLOW_ID } from '../domain/jobs/builtins';

const USAGE = `usage: npm run trial:submissions -- [--parties N (per key, default 100)] [--key <api key>]… [--api ${'http://127.0.0.1:8080'}] [--annuaire http://127.0.0.1:8091]`;

function args() {
  try {
    return parseArgs({
      options: {
        parties: { type: 'string', default: '100' },
        key: { type: 'string', multiple: true },
        api: { type: 'string', default: 'http://127.0.0.1:8080' },
        annuaire: { type: 'string', default: 'http://127.0.0.1:8091' },
        concurrency: { type: 'string', default: '6' },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}
const values = args();
const parties = Number(values.parties);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(parties) || parties < 1 || parties > 10_000 || !(concurrency >= 1 && concurrency <= 32)) {
  console.error(USAGE);
  process.exit(2);
}
const keys = values.key ?? [fs.readFileSync(path.join(process.env.DATA_DIR ?? 'data', 'dev-api-key'), 'utf8').trim()];

const TRADES = ['Boulangerie', 'Menuiserie', 'Imprimerie', 'Fromagerie', 'Garage', 'Pharmacie', 'Librairie', 'Atelier'];
const PLACES = ['du Centre', 'des Halles', 'Saint-Michel', 'de la Gare', 'du Port', 'des Alpes', 'Bellevue'];
const FORMS = ['SAS', 'SARL', 'SA', 'EURL', 'SASU'];

/** The i-th company: its declared name, and the Annuaire's record of it. */
function company(siren: string, i: number, workspace: number) {
  const name = `${TRADES[i % TRADES.length]} ${PLACES[(i * 3 + workspace) % PLACES.length]} ${i + 1}`;
  const declared = `${name} ${FORMS[i % FORMS.length]}`;
  const mismatch = i % 7 === 3; // the Annuaire knows it under another name
  const ceased = i % 11 === 5;
  return {
    siren,
    declared,
    annuaire: {
      raisonSociale: mismatch ? `SOCIETE ${i + 1} NOUVELLE` : name.toUpperCase(),
      etatAdministratif: ceased ? 'C' : 'A',
    },
  };
}

/** One request, sent again when the API is busy (429 or 503 with Retry-After). */
async function call(base: string, key: string | undefined, method: string, p: string, body?: unknown) {
  const res = await sentAgainWhenBusy(() =>
    fetch(base + p, {
      method,
      headers: { ...(key && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function main() {
  const front = b64(png());
  const back = b64(jpeg());
  const ids = sirens(keys.length * parties);
  const work = keys.flatMap((key, w) => Array.from({ length: parties }, (_, i) => ({ key, w, i })));
  let done = 0;
  const failures: string[] = [];
  const started = Date.now();
  async function one({ key, w, i }: (typeof work)[number], n: number) {
    const c = company(ids[n]!, i, w);
    await call(values.annuaire!, undefined, 'PUT', `/_simulator/companies/${c.siren}`, c.annuaire);
    const entry = await call(values.api!, key, 'POST', '/silo/v1/entries', {
      data: party(c.siren, { name: c.declared }),
    });
    const job = await call(values.api!, key, 'POST', '/transform/v1/jobs?wait=10', {
      workflow_id: REGISTRATION_WORKFLOW_ID,
      silo_entry_id: entry.id,
    });
    if (job.status !== 'WAIT') throw new Error(`job ${String(job.id)} is ${String(job.status)}, not waiting`);
    const signer = `/apps/gov-fr/v1/entry/${String(entry.id)}`;
    await call(values.api!, key, 'POST', `${signer}/identity`, { view: 'front', data: front });
    await call(values.api!, key, 'POST', `${signer}/identity`, { view: 'back', data: back });
    await call(values.api!, key, 'POST', `${signer}/sign`, {});
    await call(values.api!, key, 'POST', `${signer}/confirm`);
  }
  await pool(work, concurrency, async (item, n) => {
    await one(item, n).catch((err: unknown) => failures.push((err as Error).message));
    if (++done % 50 === 0) console.log(`${done}/${work.length} submitted`);
  });
  const s = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `${work.length - failures.length} submissions awaiting a decision, from ${keys.length} workspace(s), in ${s} s`,
  );
  if (failures.length) {
    console.error(`${failures.length} failed; the first: ${failures.slice(0, 3).join('\n')}`);
    process.exit(1);
  }
}

await main();

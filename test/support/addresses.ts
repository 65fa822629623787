// Exactly-once checks of a party's invoicing addresses (domain/party/invoicing-addresses.ts) on the simulators, for
// the suites that register many parties through crashes, restarts and retries: each address has one line of our
// matricule in the Annuaire (ever created, not only in force), each routing code exists once, each participant
// `0225:<address id>` is at the SML (ours) and in the Peppol Directory, and nothing of the SIREN is there that its
// addresses do not account for; after an unregistration, none of it is left and the SIREN is back on the fictive
// platform. The checks return what is wrong, one line each, so that a suite over a hundred parties fails naming them.
import fs from 'node:fs';
import path from 'node:path';
import type { Simulators } from '../../simulators';
import type { StoredLine } from '../../simulators/annuaire/store';
import type { StoredRoutingCode } from '../../simulators/annuaire/routing-codes';

/** A party as the suites know it: its SIREN and its addresses' directory identifiers (the SIREN alone by default). */
export interface AddressedParty {
  siren: string;
  addresses?: { ids: string[]; routingCodes: { siret: string; id: string }[] };
}

export const participantOf = (addressId: string) => `iso6523-actorid-upis::0225:${addressId.toLowerCase()}`;
const idsOf = (p: AddressedParty) => p.addresses?.ids ?? [p.siren];
/** The SIREN's participants among `all`: 0225:<SIREN> and 0225:<SIREN>_…, nothing of another SIREN. */
const ofSiren = (all: string[], siren: string) =>
  all.filter((id) => id === participantOf(siren) || id.startsWith(`${participantOf(siren)}_`)).sort();

/** What the simulators hold, read once (each read copies everything). */
export interface World {
  lines: StoredLine[];
  codes: StoredRoutingCode[];
  sml: string[];
  directory: string[];
  us: string;
  smpId: string;
  today: string;
}

export function worldOf(sims: Simulators, config: { PA_MATRICULE: string; SMP_ID: string }): World {
  return {
    lines: sims.annuaire.lines(),
    codes: sims.annuaire.routingCodes(),
    sml: sims.sml.participants(config.SMP_ID),
    directory: sims.directory.indexed(),
    us: config.PA_MATRICULE,
    smpId: config.SMP_ID,
    today: new Date().toISOString().slice(0, 10),
  };
}

const inForce = (w: World, l: StoredLine) =>
  l.dateDebutEffet <= w.today && (l.dateFinEffet === null || w.today < l.dateFinEffet);
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const show = (ls: StoredLine[]) =>
  JSON.stringify(ls.map((l) => [l.idInstance, l.matriculePlateforme, l.dateDebutEffet, l.dateFinEffet]));

/** Lines of ours ever created at each address: exactly one. A second one is a duplicate (a retry that did not look). */
function oneLineOfOursEach(w: World, p: AddressedParty): string[] {
  const faults: string[] = [];
  const ours = w.lines.filter((l) => l.siren === p.siren && l.matriculePlateforme === w.us);
  for (const id of idsOf(p)) {
    const here = ours.filter((l) => same(l.identifiantAdressage, id));
    if (here.length !== 1) faults.push(`${id}: ${here.length} lines of ours created ${show(here)}`);
  }
  const beyond = ours.filter((l) => !idsOf(p).some((id) => same(l.identifiantAdressage, id)));
  if (beyond.length) faults.push(`${p.siren}: lines of ours at addresses it does not state ${show(beyond)}`);
  return faults;
}

/**
 * Each routing code once in the directory (open while registered: an unregistration ends lines, not codes); none the
 * party did not ask for under its SIRETs.
 */
function routingCodesOnce(w: World, p: AddressedParty, open: boolean): string[] {
  const faults: string[] = [];
  const wanted = p.addresses?.routingCodes ?? [];
  for (const rc of wanted) {
    const codes = w.codes.filter((c) => c.siret === rc.siret && same(c.identifiantRoutage, rc.id));
    if (codes.length !== 1 || (open && codes[0]!.etatAdministratif !== 'A'))
      faults.push(
        `routing code ${rc.siret}/${rc.id}: ${JSON.stringify(codes.map((c) => [c.idInstance, c.etatAdministratif]))}`,
      );
  }
  const extra = w.codes.filter(
    (c) =>
      c.siret.startsWith(p.siren) && !wanted.some((rc) => c.siret === rc.siret && same(c.identifiantRoutage, rc.id)),
  );
  if (extra.length)
    faults.push(`${p.siren}: routing codes not asked for ${JSON.stringify(extra.map((c) => c.identifiantRoutage))}`);
  return faults;
}

/** A registered party: one line of ours in force per address and nothing else in force there, SML and Directory. */
export function registeredFaults(w: World, p: AddressedParty): string[] {
  const faults = [...oneLineOfOursEach(w, p), ...routingCodesOnce(w, p, true)];
  for (const id of idsOf(p)) {
    const here = w.lines.filter((l) => same(l.identifiantAdressage, id) && inForce(w, l));
    if (here.length !== 1 || here[0]!.matriculePlateforme !== w.us) faults.push(`${id}: in force ${show(here)}`);
  }
  const participants = idsOf(p).map(participantOf).sort();
  const sml = ofSiren(w.sml, p.siren);
  if (JSON.stringify(sml) !== JSON.stringify(participants))
    faults.push(`${p.siren}: at the SML ${JSON.stringify(sml)}`);
  const directory = ofSiren(w.directory, p.siren);
  if (JSON.stringify(directory) !== JSON.stringify(participants))
    faults.push(`${p.siren}: in the Directory ${JSON.stringify(directory)}`);
  return faults;
}

/**
 * A party whose registration failed for good at its SIREN line, or that was unregistered: no line of ours in force,
 * the SIREN line alone in force and on the fictive platform, nothing at the SML or in the Directory. `created`: the
 * lines of ours it had (one per address once registered, none when refused), none created twice.
 */
export function goneFaults(w: World, p: AddressedParty, created: 'each address once' | 'none'): string[] {
  const faults: string[] = [];
  if (created === 'each address once') faults.push(...oneLineOfOursEach(w, p), ...routingCodesOnce(w, p, false));
  else {
    const ours = w.lines.filter((l) => l.siren === p.siren && l.matriculePlateforme === w.us);
    if (ours.length) faults.push(`${p.siren}: lines of ours created ${show(ours)}`);
  }
  const live = w.lines.filter((l) => l.siren === p.siren && inForce(w, l));
  const fictive = live.filter((l) => l.identifiantAdressage === p.siren && l.matriculePlateforme === '9998');
  if (live.length !== 1 || fictive.length !== 1)
    faults.push(
      `${p.siren}: in force ${JSON.stringify(live.map((l) => [l.identifiantAdressage, l.matriculePlateforme]))}`,
    );
  const left = [
    ...ofSiren(w.sml, p.siren).map((id) => `SML ${id}`),
    ...ofSiren(w.directory, p.siren).map((id) => `Directory ${id}`),
  ];
  if (left.length) faults.push(`${p.siren}: left behind ${left.join(', ')}`);
  return faults;
}

/**
 * The same, from the state files the simulators of the embedded stack (`npm start`) keep in `<DATA_DIR>/simulators`
 * (simulators/index.ts): for a suite that sees the stack from outside only. The Annuaire's and the SML's are a
 * snapshot plus a journal of changes since (one JSON record a line, the last one possibly torn), replayed here.
 */
export function worldFromStateFiles(dir: string, config: { PA_MATRICULE: string; SMP_ID: string }): World {
  // A simulator that has only journaled changes since it started on an empty directory has no snapshot yet.
  const read = <T>(name: string, none: T): T => {
    const file = path.join(dir, `${name}.json`);
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : none;
  };
  const journal = <R>(name: string): R[] => {
    const file = path.join(dir, `${name}.json.journal`);
    if (!fs.existsSync(file)) return [];
    const records = fs.readFileSync(file, 'utf8').split('\n');
    records.pop(); // after the last newline: nothing, or a torn record
    return records.filter(Boolean).map((r) => JSON.parse(r) as R);
  };
  const annuaire = read<{ lines: StoredLine[]; routingCodes?: StoredRoutingCode[] }>('annuaire', { lines: [] });
  const lines = new Map(annuaire.lines.map((l) => [l.idInstance, l]));
  const codes = new Map((annuaire.routingCodes ?? []).map((c) => [c.idInstance, c]));
  for (const r of journal<{ t: string; v: StoredLine & StoredRoutingCode }>('annuaire')) {
    if (r.t === 'line') lines.set(r.v.idInstance, r.v);
    if (r.t === 'code') codes.set(r.v.idInstance, r.v);
  }
  const owners = new Map<string, string>();
  for (const [smp, ids] of Object.entries(
    read<{ participants: Record<string, string[]> }>('sml', { participants: {} }).participants,
  ))
    for (const id of ids) owners.set(id, smp);
  for (const r of journal<{ op: string; smp: string; ids: string[] }>('sml')) {
    if (r.op === 'own') for (const id of r.ids) owners.set(id, r.smp);
    if (r.op === 'drop') for (const id of r.ids) owners.delete(id);
  }
  return {
    lines: [...lines.values()],
    codes: [...codes.values()],
    sml: [...owners]
      .filter(([, smp]) => smp === config.SMP_ID)
      .map(([id]) => id)
      .sort(),
    directory: [...read<{ indexed: string[] }>('peppol-directory', { indexed: [] }).indexed].sort(),
    us: config.PA_MATRICULE,
    smpId: config.SMP_ID,
    today: new Date().toISOString().slice(0, 10),
  };
}

// Carries out a directory plan (plan.ts) through the Annuaire port (annuaire.ts), then reads back every line it wrote or
// kept, by its idInstance: a line the directory does not hold as written fails the step (`directory-not-as-written`),
// never a silent success. Whether a line is in force is not asked here: a platform's changes may show the next day.
import type { Logger } from 'pino';
import { StepRefused } from '../errors';
import { refusedForGood } from '../remote-failure';
import type { InvoicingAddress } from '../party/invoicing-addresses';
import type { Annuaire, AnnuaireLine } from './annuaire';
import type { Line } from './lines';
import type { DirectoryPlan, NewLine, Write } from './plan';

/** A line as the directory was read back to hold it. */
export interface ReadBack {
  address: string;
  idInstance: number;
  platform: string;
  start: string;
  end: string | null;
  /** Created by this attempt. */
  created: boolean;
}

export const lineOf = (l: AnnuaireLine): Line => ({
  idInstance: l.idInstance,
  address: l.identifiantAdressage,
  siren: l.siren,
  ...(l.siret && { siret: l.siret }),
  ...(l.identifiantRoutage && { routingId: l.identifiantRoutage }),
  ...(l.suffixeAdressage && { suffix: l.suffixeAdressage }),
  platform: l.matriculePlateforme,
  start: l.dateDebutEffet,
  end: l.dateFinEffet,
});

export function annuaireWriter(client: Annuaire, log: Logger) {
  /** Runs the writes in order; returns the idInstance of each line created, by its place in `writes`. */
  async function apply(
    writes: Write[],
    routingCodes: Map<string, InvoicingAddress>,
    ids: Record<string, string>,
  ): Promise<Map<Write, number>> {
    const created = new Map<Write, number>();
    for (const w of writes) {
      if (w.kind === 'end') await client.endLine(w.line.idInstance, w.on);
      else if (w.kind === 'mask') await client.maskLine(w.line.idInstance);
      else {
        const stated = routingCodes.get(w.line.address.toLowerCase());
        if (stated?.routingCode) await ensureRoutingCode(stated, ids);
        created.set(w, (await client.createLine(wireNew(w.line))).idInstance);
      }
      log.info({ ...ids, ...described(w), id: created.get(w) }, 'directory line written');
    }
    return created;
  }

  /**
   * Every line the plan wrote or kept, as the directory holds it now; a difference is the step's fault. Returns the
   * lines meant to be in force: those kept and those created.
   */
  async function readBack(plan: DirectoryPlan, created: Map<Write, number>): Promise<ReadBack[]> {
    const wanted: { idInstance: number; expect: Partial<AnnuaireLine>; created: boolean }[] = [
      ...plan.kept.map((l) => ({ idInstance: l.idInstance, expect: { dateFinEffet: null }, created: false })),
      ...plan.writes.map((w) =>
        w.kind === 'create'
          ? {
              idInstance: created.get(w)!,
              expect: {
                identifiantAdressage: w.line.address,
                matriculePlateforme: w.line.platform,
                dateDebutEffet: w.line.start,
                dateFinEffet: w.line.end,
              },
              created: true,
            }
          : w.kind === 'end'
            ? { idInstance: w.line.idInstance, expect: { dateFinEffet: w.on }, created: false }
            : { idInstance: w.line.idInstance, expect: { masked: true }, created: false },
      ),
    ];
    const held: ReadBack[] = [];
    for (const { idInstance, expect, created: isNew } of wanted) {
      const line = await client.getLineById(idInstance);
      const wrong = line
        ? Object.entries(expect).filter(([k, v]) => !sameValue((line as unknown as Record<string, unknown>)[k], v))
        : [];
      if (!line || wrong.length > 0 || (!('masked' in expect) && line.masked)) {
        const found = line
          ? wrong
              .map(([k]) => `${k} ${String((line as unknown as Record<string, unknown>)[k] ?? 'none')}`)
              .join(', ') || 'masked'
          : 'no such line';
        throw new StepRefused(
          'directory-not-as-written',
          `the directory does not hold line ${idInstance} as written: expected ${Object.entries(expect)
            .map(([k, v]) => `${k} ${String(v ?? 'none')}`)
            .join(
              ', ',
            )}, found ${found}. Nothing more was written: check line ${idInstance} with the PPF, then start the job again (the registration, address update or unregistration: a new job of the same workflow on this entry)`,
        );
      }
      if (!isNew && !plan.kept.some((l) => l.idInstance === idInstance)) continue; // ended or masked as meant
      held.push({
        address: line.identifiantAdressage,
        idInstance,
        platform: line.matriculePlateforme,
        start: line.dateDebutEffet,
        end: line.dateFinEffet,
        created: isNew,
      });
    }
    return held;
  }

  /** A routing code exists in the directory before a line uses it; one created by an earlier attempt is reused. */
  async function ensureRoutingCode(a: InvoicingAddress, ids: Record<string, string>): Promise<void> {
    const rc = a.routingCode!;
    if (await client.getRoutingCode(a.siret!, rc.id)) return;
    try {
      const created = await client.createRoutingCode({
        siret: a.siret!,
        identifiantRoutage: rc.id,
        libelleCodeRoutage: rc.label,
        natureEtablissement: rc.nature,
        etatAdministratif: rc.state,
        ...(rc.type && { typeIdentifiantRoutage: rc.type }),
        ...(rc.commitment_required !== undefined && { gestionEngagementJuridique: rc.commitment_required }),
      });
      log.info({ ...ids, address: a.id, idInstance: created.idInstance }, 'routing code created');
    } catch (err) {
      // Refused because it is there after all (an earlier attempt's answer was lost): then it is done.
      if (refusedForGood(err) && (await client.getRoutingCode(a.siret!, rc.id))) return;
      throw err;
    }
  }

  return { apply, readBack };
}

const sameValue = (have: unknown, want: unknown) =>
  typeof have === 'string' && typeof want === 'string'
    ? have.toLowerCase() === want.toLowerCase()
    : (have ?? null) === (want ?? null);

const wireNew = (l: NewLine) => ({
  siren: l.siren,
  ...(l.siret && { siret: l.siret }),
  ...(l.routingId && { identifiantRoutage: l.routingId }),
  ...(l.suffix && { suffixeAdressage: l.suffix }),
  matriculePlateforme: l.platform,
  dateDebutEffet: l.start,
  ...(l.end && { dateFinEffet: l.end }),
});

const described = (w: Write) =>
  w.kind === 'create'
    ? { write: 'create', address: w.line.address, matricule: w.line.platform, from: w.line.start, to: w.line.end }
    : { write: w.kind, address: w.line.address, idInstance: w.line.idInstance, ...(w.kind === 'end' && { on: w.on }) };

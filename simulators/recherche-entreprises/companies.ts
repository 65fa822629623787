// A company as the simulator is told it (PUT /_simulator/companies/{siren}, bulk, seedCompany) and as it keeps it.
// Its directors take the two shapes of the contract's `dirigeant_pp` and `dirigeant_pm`, told apart by
// `type_dirigeant` as the real API does. Checked with zod; a refusal names the field (French messages).
import { z } from 'zod';
import { ApiError } from './http';

const text = (max: number) => z.string().trim().min(1).max(max);
const siren = z.string().regex(/^\d{9}$/, 'un SIREN a 9 chiffres');

const dirigeantPp = z
  .strictObject({
    type_dirigeant: z.literal('personne physique'),
    nom: text(200),
    prenoms: text(200),
    qualite: text(200),
    /** Year and month only, as the RNE publishes it. */
    date_de_naissance: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'AAAA-MM attendu')
      .optional(),
    annee_de_naissance: z
      .string()
      .regex(/^\d{4}$/, 'AAAA attendu')
      .optional(),
    nationalite: text(100).optional(),
  })
  .refine(
    (d) => !d.date_de_naissance || !d.annee_de_naissance || d.date_de_naissance.startsWith(d.annee_de_naissance),
    {
      message: "n'est pas l'année de date_de_naissance",
      path: ['annee_de_naissance'],
    },
  );

const dirigeantPm = z.strictObject({
  type_dirigeant: z.literal('personne morale'),
  siren,
  denomination: text(500),
  qualite: text(200),
});

const fields = {
  nom_raison_sociale: text(500),
  etat_administratif: z.enum(['A', 'C']).optional(),
  /** INSEE's catégorie juridique, 4 digits (default 5710, SAS). */
  nature_juridique: z
    .string()
    .regex(/^\d{4}$/, '4 chiffres attendus')
    .optional(),
  /** false: a non-diffusible company, which the public API never shows. */
  diffusible: z.boolean().optional(),
  /** YYYY-MM-DD; default the day the simulator was first told of the company. */
  date_creation: z.iso.date('date AAAA-MM-JJ attendue').optional(),
  dirigeants: z
    .array(
      z.discriminatedUnion('type_dirigeant', [dirigeantPp, dirigeantPm], {
        error: 'type_dirigeant « personne physique » ou « personne morale » attendu',
      }),
    )
    .max(1000),
};
/** The body of PUT /_simulator/companies/{siren}: the SIREN is the path's (repeating it is allowed). */
const bodySchema = z.strictObject({ siren: siren.optional(), ...fields });
const seedSchema = z.strictObject({ siren, ...fields });

export type SeedCompany = z.input<typeof seedSchema>;
export type Dirigeant = z.output<typeof dirigeantPp> | z.output<typeof dirigeantPm>;

export interface StoredCompany {
  siren: string;
  nom_raison_sociale: string;
  etat_administratif: 'A' | 'C';
  nature_juridique: string;
  diffusible: boolean;
  date_creation: string;
  /** When the simulator last changed it (the contract's date-time, without zone as the real API gives it). */
  date_mise_a_jour: string;
  dirigeants: Dirigeant[];
}

function check<S extends z.ZodType>(schema: S, x: unknown, where: string): z.output<S> {
  const r = schema.safeParse(x, { error: z.locales.fr().localeError });
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const field = i.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  throw new ApiError(400, `${where}${field ? `${field} : ` : ''}${i.message}`);
}

/** A company told with its SIREN (bulk, seedCompany); `where` prefixes the refusal (`[12] ` in a bulk). */
export const seedInput = (x: unknown, where = '') => check(seedSchema, x, where);

/** A PUT body for `siren` (the path's). */
export function bodyInput(x: unknown, pathSiren: string): z.output<typeof seedSchema> {
  const body = check(bodySchema, x, '');
  if (body.siren !== undefined && body.siren !== pathSiren)
    throw new ApiError(400, `siren : ${body.siren} n'est pas celui du chemin (${pathSiren})`);
  return { ...body, siren: pathSiren };
}

/** The stored form: defaults filled, the creation day kept from an earlier version unless told. */
export function stored(c: z.output<typeof seedSchema>, before: StoredCompany | undefined, now: Date): StoredCompany {
  const stamp = now.toISOString().slice(0, 19);
  return {
    siren: c.siren,
    nom_raison_sociale: c.nom_raison_sociale,
    etat_administratif: c.etat_administratif ?? 'A',
    nature_juridique: c.nature_juridique ?? '5710',
    diffusible: c.diffusible ?? true,
    date_creation: c.date_creation ?? before?.date_creation ?? stamp.slice(0, 10),
    date_mise_a_jour: stamp,
    dirigeants: c.dirigeants,
  };
}

// A registration parked at its signer for a company the Annuaire knows by the declared name and the public register
// (the API Recherche d'entreprises simulator) lists with the directors given; signed in the app, or by uploading the
// mandate digitally signed with a key, then confirmed: what the director check and the decision policy read.
import { expect } from 'vitest';
import type { Harness } from './harness';
import { parked } from './hostile-files';
import { b64, jpeg } from '../../bin/stack/sample-images';
import { sealPdf, type SealKey } from '../../domain/mandate-document/seal';

const entry = (id: string) => `/apps/gov-fr/v1/entry/${id}`;

/** The sample party's signer (bin/stack/sample-parties.ts), as the register writes a director. */
export const SIGNER = { given: 'Élodie', surname: "N'Guessan-Dupré" };
export const director = (prenoms: string, nom: string, qualite = 'Présidente') => ({
  type_dirigeant: 'personne physique' as const,
  prenoms,
  nom,
  qualite,
});

/**
 * A registration parked at its signer, for a company the Annuaire knows by the declared name and the register lists
 * with `directors`; signed as `sign` says, then confirmed.
 */
export async function submittedFor(
  h: Harness,
  directors: ReturnType<typeof director>[] | 'not public',
  sign: { key: SealKey } | 'in-app',
): Promise<{ entryId: string; siren: string }> {
  const { entryId, mandate } = await parked(h);
  const party = (await h.api('GET', `/silo/v1/entries/${entryId}`)).body;
  const siren: string = party.data.identities[0].code;
  h.sims.annuaire.seedCompany({ siren, raisonSociale: 'BOULANGERIE EXEMPLE', etatAdministratif: 'A' });
  h.sims.recherche.seedCompany({
    siren,
    nom_raison_sociale: 'BOULANGERIE EXEMPLE',
    ...(directors === 'not public' ? { diffusible: false, dirigeants: [] } : { dirigeants: directors }),
  });
  if (typeof sign === 'object') {
    const signed = await sealPdf(mandate, sign.key, {
      name: SIGNER.given,
      reason: "J'accepte",
      location: 'Paris',
      contact: '',
    });
    const up = await h.api('POST', `${entry(entryId)}/agreement`, { data: b64(signed) });
    expect(up.status, JSON.stringify(up.body)).toBe(204);
  } else {
    expect((await h.api('POST', `${entry(entryId)}/sign`, {})).status).toBe(204);
  }
  expect((await h.api('POST', `${entry(entryId)}/identity`, { view: 'page', data: b64(jpeg()) })).status).toBe(204);
  const confirmed = await h.api('POST', `${entry(entryId)}/confirm`);
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return { entryId, siren };
}

// The mandate's wording after the DSE v3.2 model form ("accord formel"), French (the legal text) and English (a
// courtesy translation), one layout for both: a document is in one language, chosen by the caller.
import type { InvoicingAddress } from '../party/invoicing-addresses';

export type Lang = 'fr' | 'en';
export const LANGS: readonly Lang[] = ['fr', 'en'];

/** What the wording is filled with, dates already written in the document's language. */
interface Vars {
  number: string;
  company: string;
  siren: string;
  address: string;
  /** the town of the company's address, where the mandate is signed */
  city?: string;
  paName: string;
  /** absent for a PA without a SIREN: the matricule then stands for it */
  paSiren?: string;
  matricule: string;
  issuedOn: string;
  /** the day the addresses take effect, when later than the issue */
  startsOn?: string;
  former?: string;
  given: string;
  surname: string;
  role?: string;
}

export const TEXTS = {
  fr: {
    title: 'MANDAT DE RACCORDEMENT À UNE PLATEFORME AGRÉÉE ET DE DEMANDE DE MISE À JOUR DES ADRESSES DANS L’ANNUAIRE',
    number: (v: Vars) => `Mandat n° ${v.number}`,
    authorises:
      'Par le présent mandat, l’entreprise désignée en partie 1 (le mandant) autorise la plateforme agréée désignée en partie 2 (le mandataire) à :',
    authorisations: [
      'inscrire et mettre à jour ses adresses de facturation électronique (partie 4) dans l’annuaire du portail public de facturation (PPF) ;',
      'recevoir pour son compte les factures électroniques qui lui sont adressées ;',
      'la publier sur le réseau Peppol, avec une carte de visite publique dans l’annuaire Peppol (Peppol Directory) portant sa dénomination, son SIREN, son numéro de TVA et sa commune.',
    ],
    s1: '1. L’entreprise (mandant)',
    company: (v: Vars) => `Dénomination : ${v.company}\nSIREN : ${v.siren}\nAdresse : ${v.address}`,
    s2: '2. La plateforme agréée désignée (mandataire)',
    pa: (v: Vars) =>
      `Dénomination : ${v.paName}\n${v.paSiren ? `SIREN : ${v.paSiren} — matricule de plateforme : ${v.matricule}` : `Matricule de plateforme : ${v.matricule}`}`,
    s3: '3. Date de prise d’effet',
    effect: (v: Vars) =>
      v.startsOn
        ? `Le mandat prend effet le ${v.startsOn} : les adresses de la partie 4 sont inscrites à l’annuaire à compter de ce jour.`
        : `Le mandat prend effet le ${v.issuedOn}, ou à la date de son inscription à l’annuaire si elle est postérieure.`,
    s4: '4. Adresses de facturation confiées',
    addresses: (v: Vars) =>
      `SIREN ${v.siren} (adresse SIREN), ainsi que les adresses SIREN_SIRET, SIREN_SIRET_ROUTAGE et SIREN_SUFFIXE qui en dépendent.`,
    listedAddresses: 'Les adresses suivantes, et elles seules :',
    registeredNow: 'Adresses inscrites à la signature :',
    address: (a: InvoicingAddress) =>
      a.routingCode
        ? `${a.id} — établissement SIRET ${a.siret}, code routage ${a.routingCode.id} (« ${a.routingCode.label} »)`
        : a.siret
          ? `${a.id} — établissement SIRET ${a.siret}`
          : a.suffix
            ? `${a.id} — suffixe d’adressage ${a.suffix}`
            : `${a.id} — adresse SIREN`,
    s5: '5. Plateforme précédente',
    former: (v: Vars) => `Plateforme agréée précédente : matricule ${v.former}.`,
    consent: (v: Vars) =>
      `Consentement à la reprise : l’entreprise consent à ce que ${v.paName} mette fin aux lignes d’annuaire tenues par la plateforme ${v.former} à la date de bascule et inscrive les siennes à compter de cette date.`,
    noFormer: 'Aucune (les adresses sont reprises de la plateforme par défaut de l’annuaire).',
    s6: '6. Numéro du mandat',
    s7: '7. Signature du représentant légal ou de son délégataire',
    signer: (v: Vars) => `Prénom : ${v.given}\nNom : ${v.surname}\nQualité : ${v.role ?? 'non renseignée'}`,
    signedAt: (v: Vars) => (v.city ? `Fait à ${v.city} le ${v.issuedOn}` : `Fait le ${v.issuedOn}`),
    signature: 'Signature',
    noAddress: 'non renseignée',
  },
  en: {
    title: 'MANDATE APPOINTING AN APPROVED PLATFORM AND REQUESTING THE UPDATE OF ADDRESSES IN THE DIRECTORY',
    number: (v: Vars) => `Mandate no. ${v.number}`,
    authorises:
      'By this mandate, the company named in part 1 (the principal) authorises the approved platform named in part 2 (the agent) to:',
    authorisations: [
      'register and update its e-invoicing addresses (part 4) in the directory (Annuaire) of the public invoicing portal (PPF);',
      'receive on its behalf the electronic invoices addressed to it;',
      'publish it on the Peppol network, with a public business card in the Peppol Directory showing its legal name, SIREN, VAT number and town.',
    ],
    s1: '1. The company (principal)',
    company: (v: Vars) => `Legal name: ${v.company}\nSIREN: ${v.siren}\nAddress: ${v.address}`,
    s2: '2. The approved platform appointed (agent)',
    pa: (v: Vars) =>
      `Legal name: ${v.paName}\n${v.paSiren ? `SIREN: ${v.paSiren} — platform matricule: ${v.matricule}` : `Platform matricule: ${v.matricule}`}`,
    s3: '3. Effective date',
    effect: (v: Vars) =>
      v.startsOn
        ? `The mandate takes effect on ${v.startsOn}: the addresses of part 4 are entered in the directory from that day.`
        : `The mandate takes effect on ${v.issuedOn}, or on the date it is entered in the directory if later.`,
    s4: '4. Invoicing addresses entrusted',
    addresses: (v: Vars) =>
      `SIREN ${v.siren} (SIREN address), and the SIREN_SIRET, SIREN_SIRET_ROUTAGE and SIREN_SUFFIXE addresses under it.`,
    listedAddresses: 'The following addresses, and only these:',
    registeredNow: 'Addresses registered on signature:',
    address: (a: InvoicingAddress) =>
      a.routingCode
        ? `${a.id} — establishment SIRET ${a.siret}, routing code ${a.routingCode.id} (“${a.routingCode.label}”)`
        : a.siret
          ? `${a.id} — establishment SIRET ${a.siret}`
          : a.suffix
            ? `${a.id} — addressing suffix ${a.suffix}`
            : `${a.id} — SIREN address`,
    s5: '5. Previous platform',
    former: (v: Vars) => `Previous approved platform: matricule ${v.former}.`,
    consent: (v: Vars) =>
      `Consent to the take-over: the company consents to ${v.paName} ending the directory lines held by platform ${v.former} on the switch date and registering its own from that date.`,
    noFormer: 'None (the addresses are taken over from the directory’s default platform).',
    s6: '6. Mandate number',
    s7: '7. Signature of the legal representative or their delegate',
    signer: (v: Vars) => `First name: ${v.given}\nLast name: ${v.surname}\nRole: ${v.role ?? 'not given'}`,
    signedAt: (v: Vars) => (v.city ? `Signed at ${v.city} on ${v.issuedOn}` : `Signed on ${v.issuedOn}`),
    signature: 'Signature',
    noAddress: 'not given',
  },
} satisfies Record<Lang, unknown>;

export type { Vars as MandateVars };

// The mandate's wording, French (the legal text) and English (a courtesy translation), one layout for both.
export type Lang = 'fr' | 'en';
export const LANGS: readonly Lang[] = ['fr', 'en'];

interface Vars {
  number: string;
  company: string;
  siren: string;
  address: string;
  paName: string;
  paSiren: string;
  matricule: string;
  issuedOn: string;
  former?: string;
  given: string;
  surname: string;
  role?: string;
  idNumber: string;
}

export const TEXTS = {
  fr: {
    title: 'MANDAT DE DÉSIGNATION D’UNE PLATEFORME AGRÉÉE',
    number: (v: Vars) => `Mandat n° ${v.number}`,
    s1: '1. L’entreprise (mandant)',
    company: (v: Vars) => `Dénomination : ${v.company}\nSIREN : ${v.siren}\nAdresse : ${v.address}`,
    s2: '2. La plateforme agréée désignée (mandataire)',
    pa: (v: Vars) => `Dénomination : ${v.paName}\nSIREN : ${v.paSiren} — matricule de plateforme : ${v.matricule}`,
    s3: '3. Date de prise d’effet',
    effect: (v: Vars) => `Le mandat prend effet le ${v.issuedOn}, ou à la date de son inscription à l’annuaire si elle est postérieure.`,
    s4: '4. Adresses de facturation confiées',
    addresses: (v: Vars) => `SIREN ${v.siren} (adresse SIREN), ainsi que les adresses SIREN_SIRET, SIREN_SIRET_ROUTAGE et SIREN_SUFFIXE qui en dépendent.`,
    s5: '5. Plateforme précédente',
    former: (v: Vars) => `Plateforme agréée précédente : matricule ${v.former}.`,
    consent: (v: Vars) =>
      `Consentement à la reprise : l’entreprise consent à ce que ${v.paName} mette fin aux lignes d’annuaire tenues par la plateforme ${v.former} à la date de bascule et inscrive les siennes à compter de cette date.`,
    noFormer: 'Aucune (les adresses sont reprises de la plateforme par défaut de l’annuaire).',
    s6: '6. Numéro du mandat',
    s7: '7. Signature du représentant légal ou de son délégataire',
    signer: (v: Vars) =>
      `Prénom : ${v.given}\nNom : ${v.surname}\nQualité : ${v.role ?? 'non renseignée'}\nPièce d’identité n° : ${v.idNumber}\nDate : ${v.issuedOn}`,
    signature: 'Signature',
    noAddress: 'non renseignée',
  },
  en: {
    title: 'MANDATE APPOINTING AN APPROVED E-INVOICING PLATFORM',
    number: (v: Vars) => `Mandate no. ${v.number}`,
    s1: '1. The company (principal)',
    company: (v: Vars) => `Legal name: ${v.company}\nSIREN: ${v.siren}\nAddress: ${v.address}`,
    s2: '2. The approved platform appointed (agent)',
    pa: (v: Vars) => `Legal name: ${v.paName}\nSIREN: ${v.paSiren} — platform matricule: ${v.matricule}`,
    s3: '3. Effective date',
    effect: (v: Vars) => `The mandate takes effect on ${v.issuedOn}, or on the date it is entered in the directory if later.`,
    s4: '4. Invoicing addresses entrusted',
    addresses: (v: Vars) => `SIREN ${v.siren} (SIREN address), and the SIREN_SIRET, SIREN_SIRET_ROUTAGE and SIREN_SUFFIXE addresses under it.`,
    s5: '5. Previous platform',
    former: (v: Vars) => `Previous approved platform: matricule ${v.former}.`,
    consent: (v: Vars) =>
      `Consent to the take-over: the company consents to ${v.paName} ending the directory lines held by platform ${v.former} on the switch date and registering its own from that date.`,
    noFormer: 'None (the addresses are taken over from the directory’s default platform).',
    s6: '6. Mandate number',
    s7: '7. Signature of the legal representative or their delegate',
    signer: (v: Vars) =>
      `First name: ${v.given}\nLast name: ${v.surname}\nRole: ${v.role ?? 'not given'}\nIdentity document no.: ${v.idNumber}\nDate: ${v.issuedOn}`,
    signature: 'Signature',
    noAddress: 'not given',
  },
} satisfies Record<Lang, unknown>;

export type { Vars as MandateVars };

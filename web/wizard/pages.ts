// The wizard's server-rendered pages: the clear page shown for a link that opens nothing (unknown, revoked,
// finished), in the signer's language. The wizard itself is static (public/page.html) and reads its state as JSON.
export type WizardLang = 'fr' | 'en';

const TEXT = {
  fr: {
    unknownTitle: 'Lien non valable',
    unknown:
      'Ce lien d’inscription n’est pas valable ou a été révoqué. Vérifiez que vous avez copié l’adresse entière, ou demandez un nouveau lien à l’entreprise qui vous l’a envoyé.',
    finishedTitle: 'Lien clos',
    finished: 'Cette inscription n’attend plus rien de votre part : le lien n’est plus actif.',
    registered: 'L’entreprise est inscrite : elle peut désormais recevoir ses factures électroniques.',
    error:
      'Cette inscription a été interrompue. Contactez l’entreprise qui vous a envoyé le lien pour en recommencer une.',
    cancelled:
      'Cette inscription a été annulée : le mandat n’est plus valable et rien n’a été transmis à l’annuaire. Contactez l’entreprise qui vous a envoyé le lien si une nouvelle inscription est prévue.',
    switchTo: 'English',
  },
  en: {
    unknownTitle: 'Link not valid',
    unknown:
      'This registration link is not valid or has been revoked. Check that you copied the whole address, or ask the company that sent it for a new link.',
    finishedTitle: 'Link closed',
    finished: 'This registration no longer needs anything from you: the link is no longer active.',
    registered: 'The company is registered: it can now receive its electronic invoices.',
    error: 'This registration was stopped. Contact the company that sent you the link to start a new one.',
    cancelled:
      'This registration was cancelled: the mandate is no longer valid and nothing was sent to the directory. Contact the company that sent you the link if a new registration is planned.',
    switchTo: 'Français',
  },
} as const;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function linkPage(lang: WizardLang, reason: 'unknown' | 'finished', entryState?: string): string {
  const t = TEXT[lang];
  const title = reason === 'unknown' ? t.unknownTitle : t.finishedTitle;
  const body =
    reason === 'unknown'
      ? t.unknown
      : entryState === 'registered'
        ? t.registered
        : entryState === 'error'
          ? t.error
          : entryState === 'cancelled'
            ? t.cancelled
            : t.finished;
  const other = lang === 'fr' ? 'en' : 'fr';
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(title)}</title>
<link rel="stylesheet" href="../assets/wizard.css">
</head>
<body>
<main class="card notice" id="main">
<h1>${escape(title)}</h1>
<p>${escape(body)}</p>
<p><a href="?lang=${other}" hreflang="${other}" lang="${other}">${escape(t.switchTo)}</a></p>
</main>
</body>
</html>`;
}

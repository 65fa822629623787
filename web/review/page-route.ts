// The operators' review page itself (HTML): public, its data needs an operator's session (sign-in on the page).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { route } from '../http/route';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');

export const reviewPageRoute = route({
  method: 'get',
  path: '/apps/gov-fr/review/',
  operationId: 'reviewPage',
  summary: 'The operator review page (HTML; its data needs an operator signed in)',
  description: "The operators' review page: an operator signs in with their credential, no API key opens it.",
  responses: { 200: { mediaType: 'text/html' } },
  handle: async ({ req, res }) => {
    // Its assets are relative: served at /apps/gov-fr/review it would miss them (routing ignores the trailing slash).
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return void res.redirect(301, `${req.baseUrl}/`);
    res.set('cache-control', 'no-cache').sendFile(path.join(PUBLIC_DIR, 'page.html'));
  },
});

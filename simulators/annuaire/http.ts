// The simulator's HTTP plumbing: JSON answers, problem bodies with the PPF's French titles, bounded bodies.
import crypto from 'node:crypto';
import type http from 'node:http';
import { Refusal } from './store';

const TITRES: Record<number, string> = {
  400: 'Mauvaise requête',
  401: 'Non autorisé',
  403: 'Accès refusé',
  404: 'Non trouvée',
  405: 'Méthode non autorisée',
  408: 'Délai de la requête dépassé',
  422: 'Erreur de validation des données',
  429: 'Trop de requêtes',
  500: 'Erreur interne du serveur',
  501: 'Non implémenté',
  503: 'Service indisponible',
};

export class HttpError extends Refusal {}

export function send(res: http.ServerResponse, status: number, body?: unknown, type = 'application/json') {
  if (body === undefined) return void res.writeHead(status).end();
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-language': 'fr' });
  res.end(JSON.stringify(body));
}

export function problem(res: http.ServerResponse, statut: number, detail: string) {
  send(
    res,
    statut,
    { type: 'about:blank', titre: TITRES[statut] ?? `Erreur ${statut}`, statut, detail },
    'application/problem+json',
  );
}

export async function readText(req: http.IncomingMessage, limit = 1_000_000): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) throw new HttpError(400, 'corps de requête trop volumineux');
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function readJson(req: http.IncomingMessage, text: string): unknown {
  if (!text.trim()) return undefined;
  if (!/json/i.test(req.headers['content-type'] ?? ''))
    throw new HttpError(400, 'Content-Type application/json attendu');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'corps de requête : JSON mal formé');
  }
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** A list query parameter (form, explode=false: comma-separated) whose items are among `allowed`. */
export function listParam(url: URL, name: string, allowed: readonly string[]): string[] | undefined {
  const v = url.searchParams.getAll(name).join(',');
  if (!v) return undefined;
  const items = v.split(',').map((s) => s.trim());
  const bad = items.find((i) => !allowed.includes(i));
  if (bad !== undefined)
    throw new HttpError(400, `paramètre ${name} invalide (« ${bad} ») : valeurs permises ${allowed.join(', ')}`);
  return items;
}

/** The optional PPF-Rattachements header: SIREN[/SIRET[/Service]] items, comma-separated. */
export function checkRattachements(req: http.IncomingMessage) {
  const h = req.headers['ppf-rattachements'];
  if (h === undefined) return; // optional in the spec
  const items = (Array.isArray(h) ? h.join(',') : h).split(',').map((s) => s.trim());
  const bad = items.find((i) => i.length > 209 || !/^\d{9}(\/\d{14}(\/[^/]+)?)?$/.test(i));
  if (bad !== undefined)
    throw new HttpError(400, `en-tête PPF-Rattachements invalide (« ${bad} ») : SIREN[/SIRET[/Service]] attendu`);
}

/** A dateObservation query parameter, today when absent. */
export function observationDay(url: URL, day: string): string {
  const on = url.searchParams.get('dateObservation') ?? day;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(on)) throw new HttpError(400, 'dateObservation doit être une date AAAA-MM-JJ');
  return on;
}

// The SML simulator's admin routes under /_simulator/ (no auth: its owner calls them, e.g. to play other SMPs in a
// trial); documented with examples in ./ADMIN.md. They bypass fault injection, which is for the SML's own service.
import type http from 'node:http';
import { z } from 'zod';
import { BadParticipantId, parseParticipant } from '../peppol-participant';
import { readBody, sendText } from './http';
import type { SmlRegistry } from './registry';

export const ADMIN_PREFIX = '/_simulator/';
export const MAX_BULK_PARTICIPANTS = 100_000;
/** 100,000 ids of up to ~150 characters with their JSON quoting; the other admin routes take small bodies. */
const BULK_BODY_LIMIT = 16 * 1024 * 1024;
const BODY_LIMIT = 64 * 1024;
/** A NAPTR regexp is one DNS character-string (≤ 255 bytes) holding `!^.*$!<url>!`. */
const MAX_URL_LENGTH = 240;

/** SMP ids the admin routes take: letters, digits, `.`, `_`, `-`, starting with a letter or digit, up to 63. */
const smpIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'an SMP id is 1 to 63 of A-Z a-z 0-9 . _ -');

/** Why a URL cannot be an SMP's logical address, or undefined when it can. */
export function smpUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not an absolute URL`;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return `"${url}" is not an http(s) URL`;
  if (url.includes('!')) return 'the URL may not contain "!", the NAPTR regexp delimiter';
  if (Buffer.byteLength(url) > MAX_URL_LENGTH) return `the URL is longer than ${MAX_URL_LENGTH} bytes`;
  return undefined;
}

/** A path segment percent-decoded; undefined when its escapes are broken. */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The id a route names, canonical; a reason when it is none. */
function participantFromPath(segment: string): { id: string } | { problem: string } {
  const text = decoded(segment);
  if (text === undefined) return { problem: `bad percent-encoding in "${segment}"` };
  try {
    return { id: parseParticipant(text) };
  } catch (err) {
    if (err instanceof BadParticipantId) return { problem: err.message };
    throw err;
  }
}

export interface AdminDeps {
  registry: SmlRegistry;
  /** The URL an SMP's NAPTR records carry (its own, or the default). */
  smpUrl(smpId: string): string;
  dnsName(participantId: string): string;
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  sendText(res, status, JSON.stringify(body), 'application/json');
const bad = (res: http.ServerResponse, status: number, reason: string) => json(res, status, { error: reason });

/** A JSON body checked against `schema`; undefined once an error has been answered. */
async function body<T>(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  schema: z.ZodType<T>,
  limit = BODY_LIMIT,
): Promise<T | undefined> {
  const text = await readBody(req, limit);
  if (text === undefined) return void bad(res, 413, `the body is larger than ${limit} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return void bad(res, 400, `the body is not JSON: ${(err as Error).message}`);
  }
  const r = schema.safeParse(parsed);
  if (r.success) return r.data;
  const issues = r.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
  return void bad(res, 400, issues.join('; '));
}

export async function handleAdmin(req: http.IncomingMessage, res: http.ServerResponse, deps: AdminDeps): Promise<void> {
  const { registry } = deps;
  const path = (req.url ?? '/').split('?')[0]!;
  const [kind, segment, ...extra] = path.slice(ADMIN_PREFIX.length).split('/');
  const method = req.method ?? 'GET';
  const notAllowed = (allowed: string) => {
    res.setHeader('allow', allowed);
    bad(res, 405, `${method} is not allowed on ${path} (${allowed})`);
  };

  if (kind === 'smps' && segment && !extra.length) {
    const idOk = smpIdSchema.safeParse(decoded(segment));
    if (!idOk.success) return bad(res, 400, idOk.error.issues[0]!.message);
    const smpId = idOk.data;
    if (method === 'GET')
      return json(res, 200, { smpId, url: deps.smpUrl(smpId), participants: registry.count(smpId) });
    if (method !== 'PUT') return notAllowed('GET, PUT');
    const b = await body(req, res, z.strictObject({ url: z.string() }));
    if (!b) return;
    const problem = smpUrlProblem(b.url);
    if (problem) return bad(res, 400, problem);
    registry.setSmpUrl(smpId, b.url);
    return json(res, 200, { smpId, url: b.url });
  }

  if (kind === 'participants' && segment === undefined) {
    if (method !== 'POST') return notAllowed('POST');
    const b = await body(
      req,
      res,
      z.strictObject({ smpId: smpIdSchema, participants: z.array(z.string()).min(1).max(MAX_BULK_PARTICIPANTS) }),
      BULK_BODY_LIMIT,
    );
    if (!b) return;
    const ids: string[] = [];
    const problems: string[] = [];
    b.participants.forEach((p, i) => {
      try {
        ids.push(parseParticipant(p));
      } catch (err) {
        if (!(err instanceof BadParticipantId)) throw err;
        if (problems.length < 5) problems.push(`participants.${i}: ${err.message}`);
        else if (problems.length === 5) problems.push('…');
      }
    });
    if (problems.length) return bad(res, 400, `nothing seeded: ${problems.join('; ')}`); // all or nothing
    const { added, moved } = registry.seed(b.smpId, ids);
    return json(res, 200, { smpId: b.smpId, participants: new Set(ids).size, added, moved });
  }

  if (kind === 'participants' && segment && !extra.length) {
    const p = participantFromPath(segment);
    if ('problem' in p) return bad(res, 400, p.problem);
    const owner = registry.owner(p.id);
    if (method !== 'GET' && method !== 'PUT' && method !== 'DELETE') return notAllowed('GET, PUT, DELETE');
    if (owner === undefined)
      return bad(res, 404, `${p.id} is not registered (POST ${ADMIN_PREFIX}participants registers participants)`);
    if (method === 'GET') {
      const migration = registry.pendingMigration(p.id);
      return json(res, 200, {
        participantId: p.id,
        smpId: owner,
        smpUrl: deps.smpUrl(owner),
        dnsName: deps.dnsName(p.id),
        ...(migration && { migrationPreparedBy: migration.smpId }),
      });
    }
    if (method === 'DELETE') {
      registry.remove(p.id);
      res.writeHead(204).end();
      return;
    }
    const b = await body(req, res, z.strictObject({ smpId: smpIdSchema }));
    if (!b) return;
    registry.completeMigration(p.id, b.smpId); // as if the new SMP had migrated it: any prepared key is spent
    return json(res, 200, { participantId: p.id, smpId: b.smpId, previousSmpId: owner });
  }

  bad(
    res,
    404,
    `no admin route at ${path}: ${ADMIN_PREFIX}smps/{smpId}, ${ADMIN_PREFIX}participants, ${ADMIN_PREFIX}participants/{participantId}`,
  );
}

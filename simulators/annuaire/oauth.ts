// Stands in for PISTE's OAuth2 token endpoint (client credentials, in the form or as Basic), and checks the bearer
// tokens it issued.
import crypto from 'node:crypto';
import type http from 'node:http';
import { safeEqual, send } from './http';

export class Tokens {
  private readonly issued = new Map<string, { clientId: string; expiresAt: number }>();

  constructor(
    private readonly clients: Record<string, string>,
    private readonly ttlSeconds: number,
  ) {}

  /** The caller of a request with a live token, else undefined. */
  caller(req: http.IncomingMessage): { clientId: string } | undefined {
    const m = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
    const t = m && this.issued.get(m[1]!);
    if (!t || t.expiresAt <= Date.now()) return undefined;
    return t;
  }

  issue(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const oauthError = (status: number, error: string, description: string) =>
      send(res, status, { error, error_description: description });
    if (req.method !== 'POST') return oauthError(405, 'invalid_request', 'POST expected');
    const form = new URLSearchParams(raw);
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (\S+)$/i.exec(req.headers.authorization ?? '');
    if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':') as [string, string];
    if (form.get('grant_type') !== 'client_credentials')
      return oauthError(400, 'unsupported_grant_type', 'only client_credentials');
    if (!id || !secret || this.clients[id] === undefined || !safeEqual(this.clients[id]!, secret)) {
      return oauthError(401, 'invalid_client', 'unknown client or wrong secret');
    }
    const token = crypto.randomBytes(24).toString('base64url');
    this.issued.set(token, { clientId: id, expiresAt: Date.now() + this.ttlSeconds * 1000 });
    return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: this.ttlSeconds, scope: 'openid' });
  }

  /** Invalidates every token issued so far (as a gateway restart would). */
  revokeAll(): void {
    this.issued.clear();
  }
}

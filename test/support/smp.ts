// Test support for the SMP: its routes on an ephemeral port (as api/app.ts mounts them, at /smp without auth), and
// the real libxml2/xmlsec1 command-line tools run on what it answers.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { loadConfig, type Config } from '../../platform/config';
import { PEPPOL_SPEC_DIR } from '../../integrations/peppol/participant-id';
import { resolveSmpOptions, type SmpOptions } from '../../integrations/peppol/smp-documents';
import { serveSmp } from '../../api/peppol/smp';
import { errorHandler } from '../../web/http/problem';
import type { Db } from '../../platform/store/db';
import { log } from './harness';

export interface SmpServer {
  baseUrl: string;
  /** `${baseUrl}/smp` */
  smpUrl: string;
  config: Config;
  options: SmpOptions;
  dataDir: string;
  close(): Promise<void>;
}

export async function startSmpServer(
  db: Db,
  env: Record<string, string> = {},
  extra: Partial<SmpOptions> = {},
): Promise<SmpServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'smp-test-'));
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The routes need their public URL (ServiceGroup hrefs), known only once the port is.
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: baseUrl, ...env });
  const options = { ...resolveSmpOptions(config, { apEndpointUrl: 'https://ap.example.test/as4' }), ...extra };
  app.use('/smp', serveSmp({ db, config, log }, options), errorHandler(log));
  return {
    baseUrl,
    smpUrl: `${baseUrl}/smp`,
    config,
    options,
    dataDir,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ToolResult {
  ok: boolean;
  output: string;
}

const run = (cmd: string, args: string[], input?: string): ToolResult => {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
};

/** `xmllint --noout --nonet --schema spec/peppol/<xsd> -` on the document. */
export const xmllint = (xml: string, xsd: string): ToolResult =>
  run('xmllint', ['--noout', '--nonet', '--schema', path.join(PEPPOL_SPEC_DIR, xsd), '-'], xml);

/** `xmlsec1 --verify --insecure --enabled-key-data x509` (the key from KeyInfo's certificate, not trust-checked). */
export function xmlsecVerify(xml: string): ToolResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xmlsec-'));
  try {
    fs.writeFileSync(path.join(dir, 'doc.xml'), xml);
    return run('xmlsec1', ['--verify', '--insecure', '--enabled-key-data', 'x509', path.join(dir, 'doc.xml')]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function get(url: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

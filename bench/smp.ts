// `npm run bench:smp`: GET /smp/{participant} (ServiceGroup) under load — 64 connections, autocannon — against a
// bare handler answering a constant XML string of the same size on the same Express app and server, measured in
// the same run. Prints requests/s of both, their ratio, and p99 latencies; also the signed ServiceMetadata route
// (signature cached) and GET /{participant} with `recordCacheMs: 1000` (no store read per request).
// The load generator runs in a child process (2 event loops: the client must not steal the server's).
// Env: BENCH_DURATION (s per run, default 10), BENCH_CONNECTIONS (default 64).
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { loadConfig } from '../platform/config';
import { createLogger } from '../platform/observability/logger';
import { resolveSmpOptions } from '../integrations/peppol/smp-documents';
import { serveSmp } from '../api/peppol/smp';
import { publishParticipant } from '../platform/store/peppol-participants';
import { openDb } from '../platform/store/db';
import { insertEntry } from '../platform/store/entries';
import { migrate } from '../platform/store/migrate';
import { createWorkspace } from '../platform/store/workspaces';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);

interface Run {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

if (process.argv[2] === '--load') {
  // Child: one autocannon run per message, results sent back.
  const { default: autocannon } = await import('autocannon');
  process.on('message', async (m: { url: string; duration: number }) => {
    const r = await autocannon({ url: m.url, connections, duration: m.duration });
    process.send!({
      rps: r.requests.average,
      p99: r.latency.p99,
      errors: r.errors + r.timeouts,
      non2xx: r.non2xx,
    } satisfies Run);
  });
} else {
  await main();
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smp-'));
  const db = await openDb({}); // PGlite in memory, as `npm start` runs by default
  await migrate(db);
  const ws = await createWorkspace(db, 'bench');
  const siren = '552032534';
  const entry = await insertEntry(db, {
    id: crypto.randomUUID(),
    workspaceId: ws.id,
    docSchema: 'org/party',
    data: { name: 'Danone', tax_id: { country: 'FR', code: '27552032534' } },
    siren,
  });
  const participantId = `iso6523-actorid-upis::0225:${siren}`;
  await publishParticipant(db, {
    participantId,
    workspaceId: ws.id,
    entryId: entry.id,
    docGroups: ['france'],
    visibility: 'smp+sml+peppol',
    directory: true,
  });

  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: base, LOG_LEVEL: 'silent' });
  const deps = { db, config, log: createLogger('silent') };
  app.use('/smp', serveSmp(deps, resolveSmpOptions(config))); // default: the store read on every request
  app.use('/smp-cached', serveSmp(deps, { ...resolveSmpOptions(config), recordCacheMs: 1000 }));
  const groupUrl = `${base}/smp/${encodeURIComponent(participantId)}`;
  const constant = await (await fetch(groupUrl)).text(); // the very document, as a constant
  app.get('/const', (_req, res) => void res.type('text/xml; charset=utf-8').send(constant));
  const signedUrl = /ServiceMetadataReference href="([^"]+)"/.exec(constant)![1]!;

  const child = fork(fileURLToPath(import.meta.url), ['--load'], { stdio: 'inherit' });
  const load = (url: string, seconds = duration) =>
    new Promise<Run>((resolve) => {
      child.once('message', (m) => resolve(m as Run));
      child.send({ url, duration: seconds });
    });

  console.log(`${connections} connections, ${duration}s per run, Node ${process.version}, ${os.cpus().length} CPUs`);
  await load(`${base}/const`, 2); // warm-up: JIT, sockets, caches
  await load(groupUrl, 2);
  await load(signedUrl, 2);
  const cachedUrl = groupUrl.replace('/smp/', '/smp-cached/');
  await load(cachedUrl, 2);
  const bare = await load(`${base}/const`);
  const group = await load(groupUrl);
  const signed = await load(signedUrl);
  const cached = await load(cachedUrl);
  const line = (name: string, r: Run) =>
    console.log(
      `${name.padEnd(40)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${String(r.p99).padStart(4)} ms  ratio ${(r.rps / bare.rps).toFixed(2)}${r.errors || r.non2xx ? `  (errors ${r.errors}, non-2xx ${r.non2xx})` : ''}`,
    );
  line('bare constant XML handler', bare);
  line('GET /smp/{participant}', group);
  line('GET /smp/{participant}/services/{doc}', signed);
  line('GET /smp/{participant}, 1 s record cache', cached);

  child.kill();
  await new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

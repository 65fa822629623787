// The embedded stack as `npm start` runs it: it starts, prints its URLs and where its key is (never the key), stops
// cleanly on SIGINT, and on restart keeps its data — a registration parked on the approval wait before the restart
// finishes after it. The party states every level of invoicing address (SIREN, SIRET, SIRET + routing code, suffix)
// before the restart: after it, each has one directory line of ours, the routing code exists once, each participant
// is at the SML and in the Directory (read from the simulators' state files) and served by our SMP.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePortsFor } from '../../bin/stack/ports';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { REGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { everyAddressLevel, makeSiren, party } from '../../bin/stack/sample-parties';
import { ONE_APPROVAL_POLICY } from '../../bin/stack/cluster';
import { b64, png } from '../../bin/stack/sample-images';
import { loadConfig } from '../../platform/config';
import { participantOf, registeredFaults, worldFromStateFiles } from '../support/addresses';

const repo = path.join(__dirname, '..', '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-stack-'));

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });

let ports: {
  api: number;
  temporal: number;
  ui: number;
  annuaire: number;
  sml: number;
  directory: number;
  smlDns: number;
  recherche: number;
};
let stack: ChildProcess | undefined;
let output = ''; // everything the stack printed, over both starts: shown when the test fails

async function startStack(extraEnv: Record<string, string> = {}): Promise<{ output: () => string }> {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      API_PORT: String(ports.api),
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      TEMPORAL_UI_PORT: String(ports.ui),
      ANNUAIRE_SIM_PORT: String(ports.annuaire),
      SML_SIM_PORT: String(ports.sml),
      PEPPOL_DIRECTORY_SIM_PORT: String(ports.directory),
      SML_SIM_DNS_PORT: String(ports.smlDns),
      RECHERCHE_ENTREPRISES_SIM_PORT: String(ports.recherche),
      DECISION_POLICY_FILE: ONE_APPROVAL_POLICY, // its company is made up: four eyes would name it
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stack = child;
  const take = (d: Buffer) => {
    out += d;
    output += d;
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  child.once('exit', (code, signal) => (output += `\n[test] the stack exited (${code ?? signal})\n`));
  const deadline = Date.now() + 90_000;
  while (!out.includes('Ctrl-C stops everything')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`stack did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { output: () => out };
}

async function stopStack(): Promise<number | null> {
  const child = stack!;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  return exited;
}

afterAll(async () => {
  if (stack && stack.exitCode === null) await stopStack();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded stack)', () => {
  it('survives a restart with a parked job, then finishes it', async () => {
    onTestFailed(() => console.error(`the stack printed:\n${output.slice(-20_000)}`));
    // Below the ephemeral range and distinct (ports.ts): kept over the restart, none taken meanwhile.
    ports = await freePortsFor(['api', 'temporal', 'ui', 'annuaire', 'sml', 'directory', 'smlDns', 'recherche']);
    // Fault injection asked of a simulator is said at start (a harmless latency here).
    const first = await startStack({ SIM_FAULTS_PEPPOL_DIRECTORY: '{"latencyMs":1}' });
    expect(first.output()).toContain('fault injection on in the directory simulator: {"latencyMs":1}');
    // The start log shows only the key's prefix and the file that holds it.
    expect(first.output()).toMatch(/Dev API key\s+pak_\S{4}…\s+\(an integrator's; the key itself: .*dev-api-key\)/);
    const key = fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim();
    expect(first.output()).not.toContain(key);
    // And the two development operators, the same way: A decides and manages operators, B decides.
    expect(first.output()).toMatch(
      /Dev operator\s+opc_\S{4}…\s+\(Dev operator A: decide, admin; the credential itself: .*dev-operator-a\)/,
    );
    expect(first.output()).toMatch(
      /Dev operator\s+opc_\S{4}…\s+\(Dev operator B: decide; the credential itself: .*dev-operator-b\)/,
    );
    const operator = fs.readFileSync(path.join(dataDir, 'dev-operator-a'), 'utf8').trim();
    expect(first.output()).not.toContain(operator);
    expect(first.output()).toContain(`http://127.0.0.1:${ports.ui}`);
    const api = (method: string, p: string, body?: unknown, as = key) =>
      fetch(`http://127.0.0.1:${ports.api}${p}`, {
        method,
        headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => {
        if (stack!.exitCode !== null) throw new Error(`the stack has exited (${stack!.exitCode})`);
        const t = await r.text();
        if (t && !/json/.test(r.headers.get('content-type') ?? '')) {
          throw new Error(
            `${method} ${p}: ${r.status} ${r.headers.get('content-type')} is not our API's JSON: ${t.slice(0, 200)}`,
          );
        }
        return { status: r.status, body: (t ? JSON.parse(t) : undefined) as any };
      });

    // The Temporal UI is served.
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);

    // A registration parked on the approval wait, for a party stating all its invoicing addresses. (Polls every
    // 500 ms: faster, they would meet the API's rate limit.)
    const siren = makeSiren();
    const addresses = everyAddressLevel(siren);
    const entry = (await api('POST', '/silo/v1/entries', { data: party(siren) })).body;
    const meta = `/silo/v1/entries/${entry.id}/meta/fr-invoicing-addresses`;
    expect((await api('PUT', meta, { value: addresses.value })).status).toBe(200);
    const job = (
      await api('POST', '/transform/v1/jobs', { workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: entry.id })
    ).body;
    await expect
      .poll(async () => (await api('GET', `/transform/v1/jobs/${job.id}`)).body.status, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe('WAIT');

    // Ctrl-C: everything stops, including the Temporal dev server child.
    expect(await stopStack()).toBe(0);
    expect(await portOpen(ports.api)).toBe(false);
    expect(await portOpen(ports.temporal)).toBe(false);
    expect(await portOpen(ports.ui)).toBe(false);

    const second = await startStack();
    expect(fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim()).toBe(key); // the same key after a restart
    expect(second.output()).not.toContain(key);
    // The same operators after a restart.
    expect(fs.readFileSync(path.join(dataDir, 'dev-operator-a'), 'utf8').trim()).toBe(operator);
    expect((await api('GET', `/silo/v1/entries/${entry.id}`)).body.state).toBe('processing');
    expect((await api('GET', meta)).body.value.addresses).toHaveLength(addresses.ids.length);

    // The signer and the operator carry on after the restart; the registration resumes to its end.
    const e = `/apps/gov-fr/v1/entry/${entry.id}`;
    expect((await api('POST', `${e}/identity`, { view: 'page', data: b64(png()) })).status).toBe(204);
    expect((await api('POST', `${e}/sign`, {})).status).toBe(204);
    expect((await api('POST', `${e}/confirm`)).body).toEqual({ status: 'submitted' });
    await expect
      .poll(async () => (await api('GET', `/silo/v1/entries/${entry.id}`)).body.state, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe('submitted');
    expect((await api('POST', `${e}/decision`, { approved: true }, key)).status).toBe(403); // integrators never decide
    expect((await api('POST', `${e}/decision`, { approved: true }, operator)).status).toBe(200);
    await expect
      .poll(async () => (await api('GET', `/transform/v1/jobs/${job.id}`)).body.status, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe('OK')
      .catch(async (err: Error) => {
        const body = (await api('GET', `/transform/v1/jobs/${job.id}`)).body;
        throw new Error(`${err.message}; the job: ${JSON.stringify(body).slice(0, 4000)}`);
      });
    expect((await api('GET', `/silo/v1/entries/${entry.id}`)).body.state).toBe('registered');

    // Every address once: a line of ours each, the routing code once, SML and Directory (their state files); each
    // participant served by our SMP.
    const config = loadConfig({ ...process.env, DATA_DIR: dataDir });
    expect(
      registeredFaults(worldFromStateFiles(path.join(dataDir, 'simulators'), config), { siren, addresses }),
    ).toEqual([]);
    for (const id of addresses.ids) {
      const smp = await fetch(`http://127.0.0.1:${ports.api}/smp/${encodeURIComponent(participantOf(id))}`);
      expect(smp.status, id).toBe(200);
    }
    expect(await stopStack()).toBe(0);
  }, 240_000);
});

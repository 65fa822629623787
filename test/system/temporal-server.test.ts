// The real Temporal server (not the CLI's dev server) on the machine's PostgreSQL, behind mutual TLS, as
// bin/stack/temporal-server.ts runs it for the production-topology tests: only clients with a certificate of the
// test CA get in, a workflow and its search attribute are stored in PostgreSQL (found again through visibility after
// a restart of the server), and stopping it leaves no database behind.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSiren } from '../../bin/stack/sample-parties';
import { startTemporalServer, type TemporalServer } from '../../bin/stack/temporal-server';
import { generateSelfSigned } from '../../platform/crypto/dev-certificates';
import { ALL_SEARCH_ATTRIBUTES, JobStatus, Siren } from '../../contract/search-attributes';

// CI always has PostgreSQL; here the local one (trust authentication) stands in for TEST_DATABASE_URL.
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let server: TemporalServer | undefined;
let connection: Connection | undefined;
afterAll(async () => {
  await connection?.close();
  await server?.stop();
});

async function databasesNamed(names: string[]): Promise<string[]> {
  const db = new pg.Client({ connectionString: postgresUrl });
  await db.connect().catch((e: Error) => {
    throw new Error(`PostgreSQL does not answer at ${postgresUrl} (set TEST_DATABASE_URL): ${e.message}`);
  });
  try {
    const { rows } = await db.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = ANY($1) ORDER BY datname',
      [names],
    );
    return rows.map((r) => r.datname);
  } finally {
    await db.end();
  }
}

/** Polls visibility (eventually consistent: written after the workflow) until `query` finds `workflowId`. */
async function findByQuery(client: Client, query: string, workflowId: string): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for await (const wf of client.workflow.list({ query })) if (wf.workflowId === workflowId) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

describe('the Temporal server 1.29.1 on PostgreSQL, over mutual TLS', () => {
  it('starts on fresh databases with the namespace and our search attributes', async () => {
    const started = Date.now();
    server = await startTemporalServer({ postgresUrl, tls: true, maxConns: { persistence: 8, visibility: 4 } });
    console.log(`Temporal server up in ${Date.now() - started} ms (${server.address}, log ${server.logFile})`);
    const { persistence, visibility } = server.databases;
    expect(await databasesNamed([persistence, visibility])).toEqual([persistence, visibility]);

    // Workers connect with the SDK core's native client (rustls), the API with grpc-js: both take the certificates.
    const native = await NativeConnection.connect(server.connectionOptions);
    try {
      expect((await native.workflowService.getSystemInfo({})).serverVersion).toBe('1.29.1');
    } finally {
      await native.close();
    }
    connection = await Connection.connect({ ...server.connectionOptions, connectTimeout: 10_000 });
    const ns = await connection.workflowService.describeNamespace({ namespace: server.namespace });
    expect(ns.namespaceInfo?.name).toBe('default');
    const sa = await connection.operatorService.listSearchAttributes({ namespace: server.namespace });
    // 2: INDEXED_VALUE_TYPE_KEYWORD, as the compose job creates them.
    for (const { name } of ALL_SEARCH_ATTRIBUTES) expect(sa.customAttributes?.[name], name).toBe(2);
  }, 180_000);

  it('refuses a client without a certificate, with one from another CA, or without TLS', async () => {
    const { address, tls } = server!.connectionOptions;
    const stranger = generateSelfSigned('not from the test CA');
    const attempts = {
      'no client certificate': { address, tls: { ...tls, clientCertPair: undefined } },
      'a certificate from another CA': {
        address,
        tls: { ...tls, clientCertPair: { crt: Buffer.from(stranger.certPem), key: Buffer.from(stranger.keyPem) } },
      },
      'no TLS': { address },
    };
    for (const [what, options] of Object.entries(attempts)) {
      // The refusal shows as a connection that never gets ready (the handshake fails): hence the short deadline.
      const refused = await Connection.connect({ ...options, connectTimeout: 3_000 }).then(
        async (conn) => {
          await conn.close();
          return false;
        },
        () => true,
      );
      expect(refused, `a client with ${what} was let in`).toBe(true);
    }
    // Meanwhile the server was up: the client with the test CA's certificate is served.
    expect((await connection!.workflowService.getSystemInfo({})).serverVersion).toBe('1.29.1');
  }, 60_000);

  it('keeps a workflow and its search attributes in PostgreSQL, found again after a server restart', async () => {
    const client = new Client({ connection: connection!, namespace: server!.namespace });
    const siren = makeSiren();
    const workflowId = `temporal-server-test-${siren}`;
    // No worker polls this queue: the workflow stays open, which is all this needs (stored, indexed, listed).
    const handle = await client.workflow.start('NotRegisteredAnywhere', {
      taskQueue: `nobody-${siren}`,
      workflowId,
      typedSearchAttributes: [
        { key: Siren, value: siren },
        { key: JobStatus, value: 'waiting' },
      ],
    });
    expect(await findByQuery(client, `Siren = "${siren}" AND JobStatus = "waiting"`, workflowId)).toBe(true);

    const pidBefore = server!.pid;
    const restarted = Date.now();
    await server!.restart();
    console.log(`Temporal server restarted in ${Date.now() - restarted} ms`);
    expect(server!.pid).not.toBe(pidBefore);

    // The same connection: clients ride through a restart of the server.
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.typedSearchAttributes.get(Siren)).toBe(siren);
    expect(await findByQuery(client, `Siren = "${siren}"`, workflowId)).toBe(true);
    await handle.terminate('test over');
  }, 120_000);

  it('stops: the process is gone and both databases are dropped', async () => {
    const { pid, databases } = server!;
    await connection!.close();
    connection = undefined;
    await server!.stop();
    expect(() => process.kill(pid, 0)).toThrow();
    expect(await databasesNamed([databases.persistence, databases.visibility])).toEqual([]);
  }, 60_000);
});

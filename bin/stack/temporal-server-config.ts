// The self-built Temporal server's configuration file: config/development-postgres12.yaml with our ports,
// databases and TLS, and our dynamic settings (deploy/temporal-dynamic-config.yaml).
import { DYNAMIC_CONFIG_FILE } from './temporal-dynamic-config';
export const PORT_NAMES = [
  'frontend',
  'frontendMembership',
  'history',
  'historyMembership',
  'matching',
  'matchingMembership',
  'worker',
  'workerMembership',
] as const;
export type TemporalServerPorts = Record<(typeof PORT_NAMES)[number], number>;

export interface TemporalServerTls {
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** The name in the frontend's certificate (it also holds 127.0.0.1): the SNI / server name override. */
  serverName: string;
  /** The same PEMs as files, for processes configured with paths. */
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

/** The server's configuration: config/development-postgres12.yaml with our ports, databases and TLS. */
export function serverConfig(o: {
  pg: URL;
  databases: { persistence: string; visibility: string };
  ports: TemporalServerPorts;
  tls?: TemporalServerTls & {
    serverCertFile: string;
    serverKeyFile: string;
    workerCertFile: string;
    workerKeyFile: string;
  };
  logLevel: string;
  maxConns?: { persistence: number; visibility: number };
  pprofPort?: number;
}) {
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${o.pg.hostname}:${o.pg.port || 5432}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(o.pg.username) || 'postgres',
      password: decodeURIComponent(o.pg.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number) => ({
    rpc: { grpcPort, membershipPort, bindOnIP: '127.0.0.1' },
  });
  return {
    log: { stdout: true, level: o.logLevel },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      // Fixed for the life of the databases; 4 is the sample's, plenty for one history node here.
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(o.databases.persistence, o.maxConns?.persistence ?? 20),
        'postgres-visibility': datastore(o.databases.visibility, o.maxConns?.visibility ?? 10),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      ...(o.pprofPort && { pprof: { port: o.pprofPort, host: '127.0.0.1' } }),
      ...(o.tls && {
        tls: {
          // Clients (our API and workers, the CLI) must present a certificate from the test CA.
          frontend: {
            server: {
              certFile: o.tls.serverCertFile,
              keyFile: o.tls.serverKeyFile,
              clientCaFiles: [o.tls.caFile],
              requireClientAuth: true,
            },
          },
          // The server's own services reach the frontend as its clients (the system workers' SDK, the frontend
          // client every service holds; all take these settings): without a certificate they are refused, and the
          // worker service fails to start, so the server exits about a minute after reporting SERVING.
          systemWorker: {
            certFile: o.tls.workerCertFile,
            keyFile: o.tls.workerKeyFile,
            client: { serverName: o.tls.serverName, rootCaFiles: [o.tls.caFile] },
          },
        },
      }),
    },
    services: {
      frontend: service(o.ports.frontend, o.ports.frontendMembership),
      history: service(o.ports.history, o.ports.historyMembership),
      matching: service(o.ports.matching, o.ports.matchingMembership),
      worker: service(o.ports.worker, o.ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${o.ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: DYNAMIC_CONFIG_FILE, pollInterval: '60s' },
  };
}

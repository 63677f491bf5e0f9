import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { natsAuthorizationConf, natsUser, SERVICE_NAMES, type ServiceName } from "@mailroom/contracts";
import { freePort, waitFor } from "@mailroom/testkit";
import { ChildServer, tempDir } from "./servers.js";

/** The cluster's name in every server's `cluster {}` block. */
const CLUSTER_NAME = "mailroom-faults";

/**
 * The user a connection without credentials acts as (`no_auth_user`): the test's own clients (the
 * rig's Drain, stream lookups) need no password, while every service signs in as its own user with
 * only its own subjects, as in production (decisions.md §12).
 */
const TEST_USER = "faults-test";

interface Ports {
  client: number;
  monitor: number;
  route: number;
}

/** One server of the cluster: its own store directory, routes to the others. */
export class ClusterNode extends ChildServer {
  private readonly conf: string;
  /**
   * Healthy only once every stream and consumer it holds is current: after the whole cluster
   * restarts, that is an election for each of them, which took over 20 s on a loaded 2-core machine.
   */
  protected override readonly startTimeoutMs = 90_000;

  constructor(
    readonly name: string,
    private readonly ports: Ports,
    routes: number[],
    authorization: string,
  ) {
    super(ports.client, tempDir(`nats-${name}`));
    this.conf = join(this.dir, "nats.conf");
    writeFileSync(
      this.conf,
      [
        `server_name: ${JSON.stringify(name)}`,
        `listen: "127.0.0.1:${ports.client}"`,
        `http: "127.0.0.1:${ports.monitor}"`,
        `jetstream { store_dir: ${JSON.stringify(join(this.dir, "js"))} }`,
        "cluster {",
        `  name: ${CLUSTER_NAME}`,
        `  listen: "127.0.0.1:${ports.route}"`,
        `  routes: [${routes.map((p) => JSON.stringify(`nats-route://127.0.0.1:${p}`)).join(", ")}]`,
        "}",
        authorization,
        `no_auth_user: ${JSON.stringify(TEST_USER)}`,
      ].join("\n"),
    );
  }

  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }

  protected command(): [string, string[]] {
    return [process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server", ["-c", this.conf]];
  }

  /** /healthz is 200 once this server's JetStream is up and current with the cluster (nats-server 2.9). */
  protected async ready() {
    const res = await fetch(`http://127.0.0.1:${this.ports.monitor}/healthz`).catch(() => null);
    return res?.status === 200;
  }
}

export interface ClusterSettings {
  streams: Array<{ name: string; subjects: string[]; replicas: number; retention: string; maxAge: number; duplicateWindow: number }>;
  consumers: Array<{ stream: string; name: string; filter: string | undefined; ackWaitNs: number; maxDeliver: number; maxAckPending: number; replicas: number }>;
}

export interface NatsCluster {
  readonly nodes: ClusterNode[];
  /** Every server's URL, comma-separated: what each service is given as NATS_URL. */
  readonly url: string;
  /** NATS_USER and NATS_PASSWORD of each service, for the rig's per-service env. */
  credentials(service: ServiceName): Record<string, string>;
  /** The server that leads a stream now (asked of the cluster, so it follows leader changes). */
  leaderOf(stream: string): Promise<ClusterNode>;
  /** Every stream's and durable consumer's settings, as the cluster keeps them (sorted by name). */
  settings(): Promise<ClusterSettings>;
  /** Every server stopped, then all started again on their own stores. */
  restart(signal?: NodeJS.Signals): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * A three-server JetStream cluster on loopback, as the official NATS chart runs one: routes between
 * all three, a store each, and the per-service users the deployments render from the contracts'
 * permission catalog for `prefix`.
 */
export async function startNatsCluster(prefix: string, size = 3): Promise<NatsCluster> {
  const ports: Ports[] = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), monitor: await freePort(), route: await freePort() });
  const passwords = Object.fromEntries(SERVICE_NAMES.map((s) => [s, randomBytes(18).toString("hex")])) as Record<ServiceName, string>;
  const authorization = natsAuthorizationConf(prefix, (s) => JSON.stringify(passwords[s])).replace(
    /\n {2}\]\n\}\n$/,
    `\n    { user: ${JSON.stringify(TEST_USER)}, password: ${JSON.stringify(randomBytes(18).toString("hex"))} }\n  ]\n}\n`,
  );
  const routes = ports.map((p) => p.route);
  const nodes = ports.map((p, i) => new ClusterNode(`n${i + 1}`, p, routes, authorization));
  const url = nodes.map((n) => n.url).join(",");
  const startAll = async () => {
    // together: a lone server of a cluster is not healthy until it has a JetStream meta leader
    await Promise.all(nodes.map((n) => n.start()));
  };
  /** Asks whichever servers run, again until the cluster answers (a leader election takes seconds). */
  const ask = <T>(what: string, fn: (jsm: JetStreamManager) => Promise<T | null>) =>
    waitFor(
      async () => {
        const nc = await connect({ servers: nodes.filter((n) => n.running).map((n) => n.url) });
        try {
          return await fn(await jetstreamManager(nc));
        } catch {
          return null;
        } finally {
          await nc.close();
        }
      },
      { timeoutMs: 30_000, intervalMs: 200, what },
    );
  const cluster: NatsCluster = {
    nodes,
    url,
    credentials: (service) => ({ NATS_USER: natsUser(prefix, service), NATS_PASSWORD: passwords[service] }),
    async leaderOf(stream) {
      return ask(`a leader of stream ${stream}`, async (jsm) => {
        const info = await jsm.streams.info(stream);
        return nodes.find((n) => n.name === info.cluster?.leader) ?? null;
      });
    },
    settings() {
      return ask("the streams and consumers", async (jsm) => {
        const out: ClusterSettings = { streams: [], consumers: [] };
        // A clustered server answers a list with what the leaders it asked answered in time, and
        // nats.js drops the `missing` part: counts from the account and each stream tell a whole list.
        const { streams: streamCount } = await jsm.getAccountInfo();
        for await (const st of jsm.streams.list()) {
          const c = st.config;
          // settled: every stream and consumer led again (after a restart, elections take seconds)
          if (!st.cluster?.leader) return null;
          let consumers = 0;
          out.streams.push({ name: c.name, subjects: c.subjects ?? [], replicas: c.num_replicas, retention: c.retention, maxAge: c.max_age, duplicateWindow: c.duplicate_window ?? 0 });
          for await (const ci of jsm.consumers.list(c.name)) {
            const k = ci.config;
            if (!ci.cluster?.leader) return null;
            consumers++;
            out.consumers.push({
              stream: c.name,
              name: ci.name,
              filter: k.filter_subject,
              ackWaitNs: k.ack_wait ?? 0,
              maxDeliver: k.max_deliver ?? -1,
              maxAckPending: k.max_ack_pending ?? -1,
              replicas: (ci.cluster.replicas?.length ?? 0) + 1,
            });
          }
          if (consumers !== st.state.consumer_count) return null;
        }
        if (out.streams.length !== streamCount) return null;
        out.streams.sort((a, b) => a.name.localeCompare(b.name));
        out.consumers.sort((a, b) => `${a.stream}/${a.name}`.localeCompare(`${b.stream}/${b.name}`));
        return out;
      });
    },
    async restart(signal = "SIGTERM") {
      await Promise.all(nodes.map((n) => n.stop(signal)));
      await startAll();
    },
    async destroy() {
      await Promise.all(nodes.map((n) => n.destroy()));
    },
  };
  try {
    await startAll();
  } catch (err) {
    await cluster.destroy();
    throw err;
  }
  return cluster;
}

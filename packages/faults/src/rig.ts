import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { SERVICE_NAMES, type ServiceName } from "@mailroom/contracts";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { DATABASE_URL, NATS_URL, Platform, REDIS_URL, apiClient, runPrefix, type ApiClient } from "@mailroom/testkit";
import { startNatsCluster, type NatsCluster } from "./cluster.js";
import { startNats, startPostgres, startRedis, type InfraServer } from "./servers.js";

export type InfraName = "nats" | "postgres" | "redis";

export interface RigOptions {
  services?: ServiceName[];
  /** Infrastructure this test may stop: started privately for it. The rest is the shared servers. */
  own?: InfraName[];
  env?: Record<string, string>;
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /**
   * A private three-server JetStream cluster instead of a NATS server: streams replicated three
   * times (NATS_REPLICAS=3), every service given all three URLs and its own NATS user.
   */
  natsCluster?: boolean;
}

export interface Rig {
  platform: Platform;
  mailbox: Mailbox;
  infra: Partial<Record<InfraName, InfraServer>>;
  /** The private cluster, when `natsCluster` was asked for. */
  cluster?: NatsCluster;
  project: { id: string; secretKey: string; publicKey: string };
  api: ApiClient;
  /** A sender address on a domain verified for the project (when the rig runs the sending service). */
  from: string;
  destroy(): Promise<void>;
}

/**
 * A platform of its own for one fault test: its own SMTP sink (so every message in it belongs to the
 * test), private infrastructure for what the test will break, a project and a verified sender domain.
 * `destroy()` runs every step even when one fails, so no process outlives the test file.
 */
export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const infra: Rig["infra"] = {};
  const cleanup: Array<() => Promise<unknown>> = [];
  const destroy = async () => {
    for (const step of cleanup.reverse()) await step().catch((err) => console.error("fault rig cleanup:", err));
    cleanup.length = 0;
  };
  try {
    const own = new Set(opts.own ?? []);
    const start = { nats: startNats, postgres: startPostgres, redis: startRedis };
    for (const name of own) {
      const server = await start[name]();
      infra[name] = server;
      cleanup.push(() => server.destroy());
    }
    // the cluster's users are the prefix's, so the prefix is chosen before the platform
    const prefix = runPrefix();
    const cluster = opts.natsCluster ? await startNatsCluster(prefix) : undefined;
    if (cluster) cleanup.push(() => cluster.destroy());
    const mailbox = await startMailbox({ maxMessages: 500_000 });
    cleanup.push(() => mailbox.stop());
    const serviceEnv = { ...opts.serviceEnv };
    if (cluster) {
      for (const s of opts.services ?? SERVICE_NAMES) serviceEnv[s] = { ...cluster.credentials(s), ...serviceEnv[s] };
    }
    const platform = new Platform({
      prefix,
      ...(opts.services ? { services: opts.services } : {}),
      env: {
        NATS_URL: cluster?.url ?? infra.nats?.url ?? NATS_URL,
        ...(cluster ? { NATS_REPLICAS: "3" } : {}),
        DATABASE_URL: infra.postgres?.url ?? DATABASE_URL,
        REDIS_URL: infra.redis?.url ?? REDIS_URL,
        SMTP_URL: mailbox.smtpUrl,
        RETURN_PATH_DOMAIN: "bounces.mailroom.test",
        LOG_LEVEL: "warn",
        ...opts.env,
      },
      serviceEnv,
    });
    // Before start: a service that fails to start still leaves its siblings running.
    cleanup.push(() => platform.destroy());
    await platform.start();
    const project = await platform.createProject("faults");
    const domain = `f-${randomBytes(5).toString("hex")}.mailroom.test`;
    // The operator override of the CLI (no DNS needed); it asks the sending service.
    if (!opts.services || opts.services.includes("sending")) {
      await platform.verifyDomain(project.id, domain);
    }
    return { platform, mailbox, infra, ...(cluster ? { cluster } : {}), project, api: apiClient(platform.url, project.secretKey), from: `news@${domain}`, destroy };
  } catch (err) {
    await destroy();
    throw err;
  }
}

/** SIGKILL (or another signal) to every replica of a service, waiting until they are gone. */
export async function killService(platform: Platform, name: ServiceName, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  await platform.stopService(name, signal);
}

/** A connection to one service's own database of the rig, for what a test checks beneath the API. */
export function serviceDb(rig: Rig, service: ServiceName): postgres.Sql {
  const url = new URL(rig.platform.env.DATABASE_URL!);
  url.pathname = `/${rig.platform.prefix}_${service}`;
  return postgres(url.toString(), { max: 1, onnotice: () => undefined });
}

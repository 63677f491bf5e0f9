import { Clock, type Deps, Periodic, type ServiceApp } from "@mailroom/kit";
import type { CampaignsEnv } from "./config.js";
import { registerCampaignRoutes } from "./handlers/campaigns-http.js";
import { statsConsumer } from "./handlers/stats-consumer.js";
import { AudienceSource } from "./usecases/audience.js";
import { CampaignsService } from "./usecases/campaigns-service.js";
import { Fanout } from "./usecases/fanout.js";
import { Scheduler } from "./usecases/scheduler.js";
import { CampaignStats } from "./usecases/stats.js";

export type CampaignsDeps = Deps<(typeof CampaignsEnv)["shape"]>;

/** Builds the campaigns service from its deps; nothing runs until the runtime starts it. */
export function buildApp(deps: CampaignsDeps): ServiceApp {
  const { config, sql, log } = deps;
  const audience = new AudienceSource(deps.rpc);
  const clock = new Clock(config.TEST_CLOCK_DIR);
  const fanout = new Fanout(sql, deps.rpc, audience, log, {
    pageSize: config.CAMPAIGNS_PAGE_SIZE,
    batchSize: config.CAMPAIGNS_ENQUEUE_BATCH,
    concurrency: config.CAMPAIGNS_ENQUEUE_CONCURRENCY,
    maxFanouts: config.CAMPAIGNS_MAX_FANOUTS,
    leaseMs: config.CAMPAIGNS_LEASE_MS,
    window: { seconds: config.CAMPAIGNS_WINDOW_SECONDS, min: config.CAMPAIGNS_WINDOW_MIN, max: Math.max(config.CAMPAIGNS_WINDOW_MIN, config.CAMPAIGNS_WINDOW_MAX) },
    maxEnqueueAttempts: config.CAMPAIGNS_ENQUEUE_ATTEMPTS,
    abMinuteMs: config.CAMPAIGNS_AB_MINUTE_MS,
    clock,
    onProgress: (status, count) => deps.metrics.campaignRecipients.inc({ status }, count),
  });
  const campaigns = new CampaignsService(sql, deps.rpc, audience, () => fanout.kick());
  const scheduler = new Scheduler(sql, log, config.CAMPAIGNS_SCHEDULER_INTERVAL_MS, clock, () => fanout.kick());
  const stats = new CampaignStats(sql, log);
  const purge = new Periodic({ name: "counted-events purge", everyMs: 60 * 60 * 1000, log, run: () => stats.purgeCounted() });

  return {
    register(server) {
      registerCampaignRoutes(server, campaigns);
    },
    batchConsumers: [statsConsumer(deps.names, stats)],
    async start() {
      purge.start();
      scheduler.start();
      fanout.start();
    },
    // Runs after the RPC handlers stopped and before NATS drains: fan-outs can still enqueue.
    async stop() {
      await purge.stop();
      await scheduler.stop();
      await fanout.stop();
    },
  };
}

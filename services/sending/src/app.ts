import { Periodic, resolveSecret, type Deps, type ServiceApp } from "@mailroom/kit";
import { returnPathDomain, type SendingEnv } from "./config.js";
import { confirmationsRepo } from "./db/confirmations-repo.js";
import { feedbackRepo } from "./db/feedback-repo.js";
import { createRelay } from "./delivery/transport.js";
import { deliveryConsumer } from "./delivery/worker.js";
import { ProjectThrottle } from "./delivery/throttle.js";
import { CONFIRMATION_LINK_DAYS } from "./domain/confirmation-text.js";
import { LinkSigner } from "./domain/links.js";
import { VerpSigner } from "./domain/verp.js";
import { registerDomains } from "./handlers/domains.js";
import { registerEmails } from "./handlers/emails.js";
import { registerLinks } from "./handlers/links.js";
import { registerSend } from "./handlers/send.js";
import { registerSes } from "./handlers/ses.js";
import { registerSettings } from "./handlers/settings.js";
import { registerSuppressions } from "./handlers/suppressions.js";
import { registerSystemEmail } from "./handlers/system-email.js";
import { registerStats } from "./handlers/stats.js";
import { emailEventsConsumer } from "./handlers/email-events-consumer.js";
import { suppressionConsumer } from "./handlers/suppression-consumer.js";
import { registerTemplates } from "./handlers/templates.js";
import { startInbound, type InboundServer } from "./inbound/server.js";
import { createResolver, createTxtLookup } from "./infra/dns.js";
import { createSnsClient } from "./infra/sns-certs.js";
import type { Ctx } from "./usecases/context.js";
import { domainRechecks } from "./usecases/domains.js";
import { EngagementRecorder } from "./usecases/engagement.js";
import { acceptsRecipient, receiveMessage } from "./usecases/inbound.js";
import { ProjectNames, ProjectSettings, SuppressionChecks, VerifiedDomains } from "./usecases/lookups.js";
import { emailQueue } from "./usecases/queue-email.js";

export type SendingDeps = Deps<(typeof SendingEnv)["shape"]>;

/** Feedback receipts only guard against a report delivered twice; a month covers every retry schedule. */
const RECEIPT_DAYS = 30;

export function buildApp(deps: SendingDeps): ServiceApp {
  const { config } = deps;
  const secret = resolveSecret();
  const ctx: Ctx = {
    sql: deps.sql,
    names: deps.names,
    outbox: deps.outbox,
    rpc: deps.rpc,
    log: deps.log,
    verifiedDomains: new VerifiedDomains(deps.sql),
    settings: new ProjectSettings(deps.sql),
    projectNames: new ProjectNames(deps.rpc),
    suppressionChecks: new SuppressionChecks(deps.sql),
    txt: createTxtLookup(config.DNS_SERVER, config.DNS_TIMEOUT_MS),
    links: new LinkSigner(config.PUBLIC_URL, secret),
    verp: new VerpSigner(secret, returnPathDomain(config)),
    returnPathDomain: returnPathDomain(config),
    systemFrom: config.SYSTEM_FROM ?? `no-reply@${returnPathDomain(config)}`,
    maxAttachmentBytes: config.SEND_MAX_ATTACHMENT_BYTES,
    metrics: deps.metrics,
    queue: emailQueue(() => ctx),
  };
  const relay = createRelay(config.SMTP_URL, config.SMTP_POOL_SIZE);
  const delivery = {
    deliveredOn250: !config.SMTP_DSN,
    throttle: new ProjectThrottle(deps.redis, config.NATS_PREFIX, config.SEND_RATE_PER_PROJECT, deps.log),
  };
  const sns = createSnsClient(config.SNS_CERTIFICATES_FILE, (url) => deps.log.info({ url }, "SNS subscription confirmed"));
  const resolve = createResolver(config.DNS_SERVER, config.DNS_TIMEOUT_MS);
  const engagement = new EngagementRecorder(ctx, deps.log);
  const rechecks = domainRechecks(ctx, config.DOMAIN_RECHECK_INTERVAL_MS);
  const pruner = new Periodic({
    name: "feedback receipt prune",
    everyMs: 60 * 60 * 1000,
    log: deps.log,
    run: () => feedbackRepo.pruneReceipts(ctx.sql, RECEIPT_DAYS),
  });
  const confirmationPruner = new Periodic({
    name: "confirmation quota prune",
    everyMs: 60 * 60 * 1000,
    log: deps.log,
    run: () => confirmationsRepo.prune(ctx.sql, CONFIRMATION_LINK_DAYS),
  });
  let inbound: InboundServer | undefined;

  return {
    register(server) {
      registerSend(server, ctx);
      registerTemplates(server, ctx);
      registerEmails(server, ctx);
      registerDomains(server, ctx);
      registerSettings(server, ctx);
      registerSystemEmail(server, ctx);
      registerSuppressions(server, ctx);
      registerStats(server, ctx);
      registerLinks(server, ctx, engagement);
      registerSes(server, ctx, sns, new Set(config.SES_SNS_TOPIC_ARNS));
    },
    consumers: [
      deliveryConsumer(ctx, relay, { ...delivery, lane: "transactional", concurrency: config.TRANSACTIONAL_DELIVERY_CONCURRENCY }),
      deliveryConsumer(ctx, relay, { ...delivery, lane: "bulk", concurrency: config.DELIVERY_CONCURRENCY }),
      suppressionConsumer(ctx),
    ],
    batchConsumers: [emailEventsConsumer(ctx)],
    async start() {
      rechecks.start();
      inbound = await startInbound(
        {
          host: config.INBOUND_SMTP_HOST,
          port: config.INBOUND_SMTP_PORT,
          maxBytes: config.INBOUND_MAX_BYTES,
          keepBytes: Math.min(config.INBOUND_KEEP_BYTES, config.INBOUND_MAX_BYTES, config.INBOUND_BUFFER_BYTES),
          bufferBytes: config.INBOUND_BUFFER_BYTES,
          socketTimeoutMs: config.INBOUND_SOCKET_TIMEOUT_MS,
          maxClients: config.INBOUND_MAX_CLIENTS,
          name: ctx.returnPathDomain,
        },
        {
          accepts: (address) => acceptsRecipient(ctx, address),
          receive: (msg) => receiveMessage(ctx, resolve, msg),
          outcome: (outcome) => ctx.metrics.inboundMessages.inc({ outcome }),
        },
        deps.log,
      );
      pruner.start();
      confirmationPruner.start();
    },
    // Runs after the consumers have finished their in-flight deliveries.
    async stop() {
      await pruner.stop();
      await confirmationPruner.stop();
      // the RPC server has drained: no open or click arrives after this flush
      await engagement.flush();
      await inbound?.close();
      await rechecks.stop();
      relay.close();
    },
  };
}

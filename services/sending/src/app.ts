import { Clock, Periodic, resolveSecret, type Deps, type ServiceApp } from "@mailroom/kit";
import { returnPathDomain, type SendingEnv } from "./config.js";
import { confirmationsRepo } from "./db/confirmations-repo.js";
import { feedbackRepo } from "./db/feedback-repo.js";
import { createRelay } from "./delivery/transport.js";
import { deliveryConsumer, deliveryLeases } from "./delivery/worker.js";
import { ProjectThrottle } from "./delivery/throttle.js";
import { CampaignWaits } from "./delivery/campaign-waits.js";
import { ProviderGate } from "./delivery/provider-gate.js";
import { ProviderRates } from "./delivery/provider-rate.js";
import { ProviderDirectory } from "./delivery/providers.js";
import { WarmupCaps } from "./delivery/warmup.js";
import { CONFIRMATION_LINK_DAYS } from "./domain/confirmation-text.js";
import { LinkSigner } from "./domain/links.js";
import { VerpSigner } from "./domain/verp.js";
import { registerChecks } from "./handlers/checks.js";
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
import { createMxLookup, createResolver, createTxtLookup } from "./infra/dns.js";
import { createRspamdCheck } from "./infra/rspamd.js";
import { createSnsClient } from "./infra/sns-certs.js";
import { Analytics } from "./usecases/analytics.js";
import { Confirmations } from "./usecases/confirmation.js";
import type { Ctx } from "./usecases/context.js";
import { Domains } from "./usecases/domains.js";
import { CHECKS_DNS_TIMEOUT_MS, MessageChecks } from "./usecases/message-checks.js";
import { EngagementRecorder } from "./usecases/engagement.js";
import { Enqueue } from "./usecases/enqueue.js";
import { Feedback } from "./usecases/feedback.js";
import { InboundMail } from "./usecases/inbound.js";
import { ProjectNames, ProjectSettings, SuppressionChecks, VerifiedDomains } from "./usecases/lookups.js";
import { EmailQueue } from "./usecases/queue-email.js";
import { Renderer } from "./usecases/render-email.js";
import { SendEmails } from "./usecases/send.js";
import { SesFeedback } from "./usecases/ses.js";
import { Subscriptions } from "./usecases/subscriptions.js";
import { OwnEmails } from "./usecases/system-email.js";
import { Templates } from "./usecases/templates.js";
import { Timelines } from "./usecases/timelines.js";

export type SendingDeps = Deps<(typeof SendingEnv)["shape"]>;

/** Feedback receipts only guard against a report delivered twice; a month covers every retry schedule. */
const RECEIPT_DAYS = 30;

export function buildApp(deps: SendingDeps): ServiceApp {
  const { config, sql, rpc, log } = deps;
  const secret = resolveSecret();
  const bounceDomain = returnPathDomain(config);
  const links = new LinkSigner(config.PUBLIC_URL, secret);
  const systemFrom = config.SYSTEM_FROM ?? `no-reply@${bounceDomain}`;
  // the delivery workers still take one object (usecases/context.ts)
  const ctx: Ctx = { sql, names: deps.names, outbox: deps.outbox, metrics: deps.metrics, links, verp: new VerpSigner(secret, bounceDomain), systemFrom };

  const verified = new VerifiedDomains(sql);
  const settings = new ProjectSettings(sql, verified);
  const suppressions = new SuppressionChecks(sql);
  const queue = new EmailQueue(sql, deps.names, deps.outbox);
  const renderer = new Renderer(links, settings);
  const own = new OwnEmails(sql, queue, systemFrom, bounceDomain);
  const templates = new Templates(sql, rpc, verified);
  const campaignWaits = new CampaignWaits(deps.redis, config.NATS_PREFIX, log);
  const analytics = new Analytics(sql, campaignWaits);
  const txt = createTxtLookup(config.DNS_SERVER, config.DNS_TIMEOUT_MS);
  const domains = new Domains(sql, txt, verified, bounceDomain, log);
  const rspamd = config.RSPAMD_URL ? createRspamdCheck(config.RSPAMD_URL, config.RSPAMD_TIMEOUT_MS, config.RSPAMD_PASSWORD) : null;
  // The checks answer within MESSAGE_CHECKS_TIMEOUT_MS whatever DNS_TIMEOUT_MS says: a DMARC lookup
  // can take two lookups in a row, so each gets at most CHECKS_DNS_TIMEOUT_MS.
  const checksTxt = config.DNS_TIMEOUT_MS <= CHECKS_DNS_TIMEOUT_MS ? txt : createTxtLookup(config.DNS_SERVER, CHECKS_DNS_TIMEOUT_MS);
  const checks = new MessageChecks(sql, checksTxt, settings, links, bounceDomain, rspamd);
  const feedback = new Feedback(deps.outbox, deps.names);
  const sns = createSnsClient(config.SNS_CERTIFICATES_FILE, (url) => log.info({ url }, "SNS subscription confirmed"));
  const inboundMail = new InboundMail({
    sql,
    rpc,
    outbox: deps.outbox,
    names: deps.names,
    feedback,
    resolve: createResolver(config.DNS_SERVER, config.DNS_TIMEOUT_MS),
    verp: ctx.verp,
    returnPathDomain: bounceDomain,
    log,
    metrics: deps.metrics,
  });
  const relay = createRelay(config.SMTP_URL, config.SMTP_POOL_SIZE);
  const leases = deliveryLeases(sql, config.DELIVERY_LEASE_MS, log);
  const delivery = {
    deliveredOn250: !config.SMTP_DSN,
    throttle: new ProjectThrottle(deps.redis, config.NATS_PREFIX, config.SEND_RATE_PER_PROJECT, log),
    // one of each per replica, shared by both lanes: a provider's connections are the replica's
    providers: new ProviderDirectory(createMxLookup(config.DNS_SERVER, config.DNS_TIMEOUT_MS)),
    gate: new ProviderGate(config.DELIVERY_LIMITS, new ProviderRates(deps.redis, config.NATS_PREFIX, log), deps.redis, config.NATS_PREFIX, deps.metrics, log, campaignWaits),
    warmup: new WarmupCaps(sql, deps.redis, config.NATS_PREFIX, new Clock(config.TEST_CLOCK_DIR), log),
    leases,
    maxAgeMs: config.DELIVERY_MAX_AGE,
    timeScale: config.DELIVERY_TIME_SCALE,
    log,
  };
  const engagement = new EngagementRecorder(sql, deps.outbox, deps.names, log);
  const rechecks = domains.rechecks(config.DOMAIN_RECHECK_INTERVAL_MS);
  const pruner = new Periodic({
    name: "feedback receipt prune",
    everyMs: 60 * 60 * 1000,
    log,
    run: () => feedbackRepo.pruneReceipts(sql, RECEIPT_DAYS),
  });
  const confirmationPruner = new Periodic({
    name: "confirmation quota prune",
    everyMs: 60 * 60 * 1000,
    log,
    run: () => confirmationsRepo.prune(sql, CONFIRMATION_LINK_DAYS),
  });
  let inbound: InboundServer | undefined;

  return {
    register(server) {
      const sends = new SendEmails({ sql, rpc, queue, renderer, domains: verified, suppressions, returnPathDomain: bounceDomain, maxAttachmentBytes: config.SEND_MAX_ATTACHMENT_BYTES });
      registerSend(server, sends);
      registerTemplates(server, templates);
      registerEmails(server, analytics, new Enqueue(sql, queue, renderer, verified, bounceDomain, settings), templates);
      registerDomains(server, domains);
      registerChecks(server, checks);
      registerSettings(server, settings, new Confirmations(sql, own, settings, verified, links, new ProjectNames(rpc), log));
      registerSystemEmail(server, own);
      registerSuppressions(server, suppressions, log);
      registerStats(server, analytics);
      registerLinks(server, links, engagement, new Subscriptions(sql, rpc, links, suppressions));
      const topics = new Set(config.SES_SNS_TOPIC_ARNS);
      registerSes(server, new SesFeedback(sql, feedback, sns, topics, bounceDomain, log, deps.metrics));
    },
    consumers: [
      deliveryConsumer(ctx, relay, { ...delivery, lane: "transactional", concurrency: config.TRANSACTIONAL_DELIVERY_CONCURRENCY }),
      deliveryConsumer(ctx, relay, { ...delivery, lane: "bulk", concurrency: config.DELIVERY_CONCURRENCY }),
      suppressionConsumer(deps.names, suppressions),
    ],
    batchConsumers: [emailEventsConsumer(deps.names, new Timelines(sql))],
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
          name: bounceDomain,
        },
        {
          accepts: (address) => inboundMail.accepts(address),
          receive: (msg) => inboundMail.receive(msg),
          outcome: (outcome) => deps.metrics.inboundMessages.inc({ outcome }),
        },
        log,
      );
      pruner.start();
      confirmationPruner.start();
      campaignWaits.start();
    },
    // Runs after the consumers have finished their in-flight deliveries.
    async stop() {
      await pruner.stop();
      await confirmationPruner.stop();
      // the RPC server has drained: no open or click arrives after this flush
      await engagement.flush();
      await inbound?.close();
      await rechecks.stop();
      // the deliveries have ended: no lease is left to renew, no email waits at a gate
      await leases.stop();
      await campaignWaits.stop();
      relay.close();
    },
  };
}

import { type Deps, Periodic, resolveSecret, type ServiceApp } from "@mailroom/kit";
import type { ContactsEnv } from "./config.js";
import { activityRepo } from "./db/activity-repo.js";
import { CursorCodec } from "./domain/cursor.js";
import { registerContactRoutes } from "./handlers/contacts-http.js";
import { registerImportRoutes } from "./handlers/imports-http.js";
import { emailEventsConsumer } from "./handlers/email-events.js";
import { registerRpcs } from "./handlers/rpc.js";
import { segmentChangesConsumer } from "./handlers/segment-changes.js";
import { registerSegmentRoutes } from "./handlers/segments-http.js";
import { registerTopicRoutes } from "./handlers/topics-http.js";
import { registerFormRoutes } from "./handlers/forms-http.js";
import { FormSubmissions } from "./usecases/form-submissions.js";
import { FormsService } from "./usecases/forms-service.js";
import { ContactsService } from "./usecases/contacts-service.js";
import { DataKeyRegistry } from "./usecases/data-key-registry.js";
import { ConfirmationMailer } from "./usecases/confirmation-mailer.js";
import { DoubleOptInGate } from "./usecases/double-opt-in.js";
import { TopicsService } from "./usecases/topics-service.js";
import { DueScheduler } from "./usecases/due-scheduler.js";
import { EmailActivityProjection } from "./usecases/email-activity.js";
import { Exporter } from "./usecases/exporter.js";
import { ImportApplier } from "./usecases/import-applier.js";
import { ImportRunner } from "./usecases/import-runner.js";
import { ImportsService } from "./usecases/imports-service.js";
import { ContactQueries } from "./usecases/queries.js";
import { SegmentQueries } from "./usecases/segment-queries.js";
import { SegmentsService } from "./usecases/segments-service.js";
import { MembershipTracker } from "./usecases/tracker.js";
import { Writer } from "./usecases/writer.js";

/** How often pending double opt-in confirmations are looked for (an import's batches also kick it). */
const CONFIRMATIONS_EVERY_MS = 2000;

/** Builds the contacts service from its deps; nothing listens until the runtime registers it. */
export function buildApp(deps: Deps<(typeof ContactsEnv)["shape"]>): ServiceApp {
  const writer = new Writer(deps.sql, deps.outbox, deps.names);
  const secret = resolveSecret();
  const cursors = new CursorCodec(secret);
  const topics = new TopicsService(deps.sql);
  const confirmations = new ConfirmationMailer(deps.sql, deps.rpc, deps.log, CONFIRMATIONS_EVERY_MS, deps.config.CONFIRMATION_RETRY_MS);
  const optIn = new DoubleOptInGate(deps.rpc, confirmations);
  const dataKeys = new DataKeyRegistry(deps.sql);
  const service = new ContactsService(writer, topics, optIn, dataKeys);
  const queries = new ContactQueries(deps.sql, cursors);
  const forms = new FormsService(deps.sql);
  const submissions = new FormSubmissions(deps.sql, service, deps.rpc, deps.log, { secret, publicUrl: deps.config.PUBLIC_URL });
  const segments = new SegmentsService(deps.sql);
  const segmentQueries = new SegmentQueries(deps.sql, cursors);
  const tracker = new MembershipTracker(deps.sql, writer, deps.log);
  const scheduler = new DueScheduler(deps.sql, tracker, deps.log, deps.config.SEGMENTS_TICK_MS);
  const applier = new ImportApplier(deps.sql, deps.names, topics, deps.log);
  const imports = new ImportRunner(deps.sql, deps.blobs, applier, confirmations, deps.log, {
    concurrency: deps.config.IMPORT_CONCURRENCY,
    batchRows: deps.config.IMPORT_BATCH_ROWS,
    leaseMs: deps.config.IMPORT_LEASE_MS,
  });
  const purge = new Periodic({ name: "email-activity purge", everyMs: 60 * 60 * 1000, log: deps.log, run: () => activityRepo.purgeConsumed(deps.sql) });
  return {
    register(server) {
      registerContactRoutes(server, service, queries);
      registerSegmentRoutes(server, segments, segmentQueries);
      registerTopicRoutes(server, topics);
      registerFormRoutes(server, forms, submissions);
      const exporter = new Exporter(deps.sql, segmentQueries);
      const importsService = new ImportsService(deps.sql, deps.blobs, imports, topics, optIn, dataKeys, deps.config.IMPORT_MAX_PENDING);
      registerImportRoutes(server, importsService, exporter);
      registerRpcs(server, service, queries, segmentQueries, topics);
    },
    consumers: [segmentChangesConsumer(deps.names, tracker)],
    batchConsumers: [emailEventsConsumer(deps.names, new EmailActivityProjection(writer))],
    async start() {
      purge.start();
      scheduler.start();
      imports.start();
      confirmations.start();
    },
    async stop() {
      await imports.stop();
      await confirmations.stop();
      await purge.stop();
      await scheduler.stop();
    },
  };
}

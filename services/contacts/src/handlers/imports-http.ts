import { AppError, contactsRoutes, type HttpReply, importTopicIds, routeOf } from "@mailroom/contracts";
import { newId, type RpcServer, type Sql } from "@mailroom/kit";
import { importsRepo, toImport } from "../db/imports-repo.js";
import type { DoubleOptInGate } from "../usecases/double-opt-in.js";
import type { Exporter } from "../usecases/exporter.js";
import type { ImportRunner } from "../usecases/import-runner.js";
import type { TopicsService } from "../usecases/topics-service.js";

export interface ImportRouteDeps {
  sql: Sql;
  runner: ImportRunner;
  exporter: Exporter;
  topics: TopicsService;
  optIn: DoubleOptInGate;
  /** IMPORT_MAX_PENDING */
  maxPending: number;
}

const CSV = "text/csv; charset=utf-8";

/** CSV import and export (decisions.md §14): the import runs off the request path (ImportRunner). */
export function registerImportRoutes(server: RpcServer, { sql, runner, exporter, topics, optIn, maxPending }: ImportRouteDeps): void {
  server
    .route(routeOf(contactsRoutes, "contacts.imports.create"), async ({ projectId, query, meta }) => {
      // the gateway stored the body (an `upload` route); without it there is nothing to import
      if (!meta.upload) throw AppError.validation("The CSV body is missing");
      // (a refusal makes the gateway delete the upload)
      if ((await importsRepo.pending(sql, projectId)) >= maxPending) {
        throw new AppError("RATE_LIMITED", `The project already has ${maxPending} imports running or waiting; try again when one has ended`, { reason: "imports_pending" });
      }
      const topicIds = importTopicIds(query.topics);
      if (topicIds.length > 0) {
        const catalog = await topics.catalog(projectId);
        const unknown = topicIds.filter((id) => !catalog.has(id));
        if (unknown.length > 0) {
          const details = unknown.map((id) => ({ path: "query.topics", message: `${id} is not a topic of this project` }));
          throw AppError.validation(details[0]!.message, details);
        }
      }
      // The setting as it is now holds for the whole import, a takeover's included.
      const doubleOptIn = await optIn.current(projectId);
      const upload = { blob: meta.upload.blob, bytes: meta.upload.bytes };
      const row = await importsRepo.create(sql, { id: newId(), projectId, ...upload, topics: topicIds, doubleOptIn, at: new Date() });
      runner.poke();
      return { status: 202, body: { id: row.id, status: row.status } } satisfies HttpReply;
    })
    .route(routeOf(contactsRoutes, "contacts.imports.read"), async ({ projectId, params }) => {
      const row = await importsRepo.byId(sql, projectId, params.id);
      if (!row) throw AppError.notFound("Import");
      return { status: 200, body: toImport(row) };
    })
    .route(routeOf(contactsRoutes, "contacts.export"), async ({ projectId, query, meta }) => {
      const { csv, next } = await exporter.chunk(projectId, query.segmentId, meta.continuation);
      return {
        status: 200,
        headers: { "content-disposition": 'attachment; filename="contacts.csv"', "cache-control": "no-store" },
        raw: { contentType: CSV, base64: Buffer.from(csv).toString("base64") },
        ...(next === undefined ? {} : { next }),
      } satisfies HttpReply;
    });
}

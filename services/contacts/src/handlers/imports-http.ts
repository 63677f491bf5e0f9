import { AppError, contactsRoutes, contactsRpc, type HttpReply, importTopicIds, routeOf } from "@mailroom/contracts";
import { type Blobs, newId, type RpcServer, type Sql } from "@mailroom/kit";
import { importSlotsRepo } from "../db/import-slots-repo.js";
import { importsRepo, toImport } from "../db/imports-repo.js";
import type { DataKeyRegistry } from "../usecases/data-key-registry.js";
import type { DoubleOptInGate } from "../usecases/double-opt-in.js";
import type { Exporter } from "../usecases/exporter.js";
import { uploadColumns } from "../usecases/import-loader.js";
import type { ImportRunner } from "../usecases/import-runner.js";
import type { TopicsService } from "../usecases/topics-service.js";

export interface ImportRouteDeps {
  sql: Sql;
  blobs: Blobs;
  runner: ImportRunner;
  exporter: Exporter;
  topics: TopicsService;
  optIn: DoubleOptInGate;
  dataKeys: DataKeyRegistry;
  /** IMPORT_MAX_PENDING */
  maxPending: number;
}

const CSV = "text/csv; charset=utf-8";

const pendingLimit = (max: number) =>
  new AppError("RATE_LIMITED", `The project already has ${max} imports running or waiting; try again when one has ended`, { reason: "imports_pending" });

/** CSV import and export (decisions.md §14): the import runs off the request path (ImportRunner). */
export function registerImportRoutes(server: RpcServer, { sql, blobs, runner, exporter, topics, optIn, dataKeys, maxPending }: ImportRouteDeps): void {
  server
    // Asked by the gateway before it reads an upload's body (decisions.md §15): a project with its
    // pending imports is refused before a byte of the file reaches the blob store.
    .rpc(contactsRpc.reserveImport, async ({ projectId, ttlMs }) => {
      const slot = await importSlotsRepo.reserve(sql, projectId, maxPending, ttlMs);
      if (!slot) throw pendingLimit(maxPending);
      return { slot };
    })
    .rpc(contactsRpc.releaseImport, async ({ projectId, slot }) => {
      await importSlotsRepo.release(sql, projectId, slot);
      return {};
    })
    .route(routeOf(contactsRoutes, "contacts.imports.create"), async ({ projectId, query, meta }) => {
      // the gateway stored the body (an `upload` route); without it there is nothing to import
      if (!meta.upload) throw AppError.validation("The CSV body is missing");
      const topicIds = importTopicIds(query.topics);
      if (topicIds.length > 0) {
        const catalog = await topics.catalog(projectId);
        const unknown = topicIds.filter((id) => !catalog.has(id));
        if (unknown.length > 0) {
          const details = unknown.map((id) => ({ path: "query.topics", message: `${id} is not a topic of this project` }));
          throw AppError.validation(details[0]!.message, details);
        }
      }
      // Every data column is a data key of the project: over its limit, nothing is imported (400).
      const source = await blobs.readStream(meta.upload.blob);
      const columns = source ? await uploadColumns(source) : null;
      if (columns) await dataKeys.admit(projectId, columns.data.map((c) => c.key));
      // The setting as it is now holds for the whole import, a takeover's included.
      const doubleOptIn = await optIn.current(projectId);
      const upload = { blob: meta.upload.blob, bytes: meta.upload.bytes };
      const slot = meta.upload.slot;
      // (a refusal makes the gateway delete the upload and give its place back)
      const row = await sql.begin(async (tx) => {
        await importSlotsRepo.lock(tx, projectId);
        const held = slot !== undefined && (await importSlotsRepo.take(tx, projectId, slot));
        if (!held && (await importSlotsRepo.pending(tx, projectId)) >= maxPending) throw pendingLimit(maxPending);
        return importsRepo.create(tx, { id: newId(), projectId, ...upload, topics: topicIds, doubleOptIn, at: new Date() });
      });
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

import { AppError, contactsRoutes, type HttpReply, routeOf } from "@mailroom/contracts";
import { newId, type RpcServer, type Sql } from "@mailroom/kit";
import { importsRepo, toImport } from "../db/imports-repo.js";
import type { Exporter } from "../usecases/exporter.js";
import type { ImportRunner } from "../usecases/import-runner.js";

const CSV = "text/csv; charset=utf-8";

/** CSV import and export (decisions.md §14): the import runs off the request path (ImportRunner). */
export function registerImportRoutes(server: RpcServer, sql: Sql, runner: ImportRunner, exporter: Exporter, maxPending: number): void {
  server
    .route(routeOf(contactsRoutes, "contacts.imports.create"), async ({ projectId, meta }) => {
      // the gateway stored the body (an `upload` route); without it there is nothing to import
      if (!meta.upload) throw AppError.validation("The CSV body is missing");
      // (a refusal makes the gateway delete the upload)
      if ((await importsRepo.pending(sql, projectId)) >= maxPending) {
        throw new AppError("RATE_LIMITED", `The project already has ${maxPending} imports running or waiting; try again when one has ended`, { reason: "imports_pending" });
      }
      const row = await importsRepo.create(sql, { id: newId(), projectId, blob: meta.upload.blob, bytes: meta.upload.bytes, at: new Date() });
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

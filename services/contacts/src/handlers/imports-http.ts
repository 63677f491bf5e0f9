import { AppError, contactsRoutes, contactsRpc, type HttpReply, routeOf } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Exporter } from "../usecases/exporter.js";
import type { ImportsService } from "../usecases/imports-service.js";

const CSV = "text/csv; charset=utf-8";

/** CSV import and export (decisions.md §14): the import runs off the request path (ImportRunner). */
export function registerImportRoutes(server: RpcServer, imports: ImportsService, exporter: Exporter): void {
  server
    // Asked by the gateway before it reads an upload's body (decisions.md §15): a project with its
    // pending imports is refused before a byte of the file reaches the blob store.
    .rpc(contactsRpc.reserveImport, async ({ projectId, ttlMs }) => ({ slot: await imports.reserve(projectId, ttlMs) }))
    .rpc(contactsRpc.releaseImport, async ({ projectId, slot }) => {
      await imports.release(projectId, slot);
      return {};
    })
    .route(routeOf(contactsRoutes, "contacts.imports.create"), async ({ projectId, query, meta }) => {
      // the gateway stored the body (an `upload` route); without it there is nothing to import
      if (!meta.upload) throw AppError.validation("The CSV body is missing");
      const started = await imports.start(projectId, query.topics, { blob: meta.upload.blob, bytes: meta.upload.bytes, slot: meta.upload.slot });
      return { status: 202, body: started } satisfies HttpReply;
    })
    .route(routeOf(contactsRoutes, "contacts.imports.read"), async ({ projectId, params }) => {
      const found = await imports.get(projectId, params.id);
      if (!found) throw AppError.notFound("Import");
      return { status: 200, body: found };
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

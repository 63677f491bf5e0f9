import { AppError, type ContactImport, importTopicIds } from "@mailroom/contracts";
import { type Blobs, newId, type Sql } from "@mailroom/kit";
import { importSlotsRepo } from "../db/import-slots-repo.js";
import { importsRepo, toImport } from "../db/imports-repo.js";
import type { DataKeyRegistry } from "./data-key-registry.js";
import type { DoubleOptInGate } from "./double-opt-in.js";
import { uploadColumns } from "./import-loader.js";
import type { ImportRunner } from "./import-runner.js";
import type { TopicsService } from "./topics-service.js";

const pendingLimit = (max: number) =>
  new AppError("RATE_LIMITED", `The project already has ${max} imports running or waiting; try again when one has ended`, { reason: "imports_pending" });

/**
 * CSV imports as the API sees them (decisions.md §14): one is recorded here and run off the request
 * path by the ImportRunner.
 */
export class ImportsService {
  constructor(
    private readonly sql: Sql,
    private readonly blobs: Blobs,
    private readonly runner: ImportRunner,
    private readonly topics: TopicsService,
    private readonly optIn: DoubleOptInGate,
    private readonly dataKeys: DataKeyRegistry,
    /** IMPORT_MAX_PENDING */
    private readonly maxPending: number,
  ) {}

  /**
   * A place for one more pending import, asked by the gateway before it reads an upload's body
   * (decisions.md §15): a project with its pending imports is refused before a byte of the file
   * reaches the blob store.
   */
  async reserve(projectId: string, ttlMs: number): Promise<string> {
    const slot = await importSlotsRepo.reserve(this.sql, projectId, this.maxPending, ttlMs);
    if (!slot) throw pendingLimit(this.maxPending);
    return slot;
  }

  release(projectId: string, slot: string): Promise<void> {
    return importSlotsRepo.release(this.sql, projectId, slot);
  }

  /**
   * Records an import of the stored upload, opting its rows into `?topics=`, and pokes the runner. Every
   * data column is a data key of the project: over its limit, nothing is imported (400). A refusal
   * makes the gateway delete the upload and give its place back.
   */
  async start(projectId: string, topicsParam: string | undefined, upload: { blob: string; bytes: number; slot?: string }): Promise<{ id: string; status: ContactImport["status"] }> {
    const topicIds = importTopicIds(topicsParam);
    if (topicIds.length > 0) {
      const catalog = await this.topics.catalog(projectId);
      const unknown = topicIds.filter((id) => !catalog.has(id));
      if (unknown.length > 0) {
        const details = unknown.map((id) => ({ path: "query.topics", message: `${id} is not a topic of this project` }));
        throw AppError.validation(details[0]!.message, details);
      }
    }
    const source = await this.blobs.readStream(upload.blob);
    const columns = source ? await uploadColumns(source) : null;
    if (columns) await this.dataKeys.admit(projectId, columns.data.map((c) => c.key));
    // The setting as it is now holds for the whole import, a takeover's included.
    const doubleOptIn = await this.optIn.current(projectId);
    const { slot, ...stored } = upload;
    const row = await this.sql.begin(async (tx) => {
      await importSlotsRepo.lock(tx, projectId);
      const held = slot !== undefined && (await importSlotsRepo.take(tx, projectId, slot));
      if (!held && (await importSlotsRepo.pending(tx, projectId)) >= this.maxPending) throw pendingLimit(this.maxPending);
      return importsRepo.create(tx, { id: newId(), projectId, ...stored, topics: topicIds, doubleOptIn, at: new Date() });
    });
    this.runner.poke();
    return { id: row.id, status: row.status };
  }

  async get(projectId: string, id: string): Promise<ContactImport | null> {
    const row = await importsRepo.byId(this.sql, projectId, id);
    return row ? toImport(row) : null;
  }
}

import { AppError, type ContactImport, importTopicIds } from "@mailroom/contracts";
import { newId, type Sql } from "@mailroom/kit";
import { importsRepo, toImport } from "../db/imports-repo.js";
import type { DoubleOptInGate } from "./double-opt-in.js";
import type { ImportRunner } from "./import-runner.js";
import type { TopicsService } from "./topics-service.js";

/**
 * CSV imports as the API sees them (decisions.md §14): one is recorded here and run off the request
 * path by the ImportRunner.
 */
export class ImportsService {
  constructor(
    private readonly sql: Sql,
    private readonly runner: ImportRunner,
    private readonly topics: TopicsService,
    private readonly optIn: DoubleOptInGate,
    /** IMPORT_MAX_PENDING */
    private readonly maxPending: number,
  ) {}

  /** Records an import of the stored upload, opting its rows into `?topics=`, and pokes the runner. */
  async start(projectId: string, topicsParam: string | undefined, upload: { blob: string; bytes: number }): Promise<{ id: string; status: ContactImport["status"] }> {
    // (a refusal makes the gateway delete the upload)
    if ((await importsRepo.pending(this.sql, projectId)) >= this.maxPending) {
      throw new AppError("RATE_LIMITED", `The project already has ${this.maxPending} imports running or waiting; try again when one has ended`, {
        reason: "imports_pending",
      });
    }
    const topicIds = importTopicIds(topicsParam);
    if (topicIds.length > 0) {
      const catalog = await this.topics.catalog(projectId);
      const unknown = topicIds.filter((id) => !catalog.has(id));
      if (unknown.length > 0) {
        const details = unknown.map((id) => ({ path: "query.topics", message: `${id} is not a topic of this project` }));
        throw AppError.validation(details[0]!.message, details);
      }
    }
    // The setting as it is now holds for the whole import, a takeover's included.
    const doubleOptIn = await this.optIn.current(projectId);
    const row = await importsRepo.create(this.sql, { id: newId(), projectId, ...upload, topics: topicIds, doubleOptIn, at: new Date() });
    this.runner.poke();
    return { id: row.id, status: row.status };
  }

  async get(projectId: string, id: string): Promise<ContactImport | null> {
    const row = await importsRepo.byId(this.sql, projectId, id);
    return row ? toImport(row) : null;
  }
}

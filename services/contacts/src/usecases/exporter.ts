import { z } from "zod";
import { AppError, Id } from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { dataKeysRepo } from "../db/data-keys-repo.js";
import { exportHeader, exportLine } from "../domain/csv-export.js";
import type { SegmentQueries } from "./segment-queries.js";

/** Rows read per query. */
const PAGE_ROWS = 500;
/** A chunk ends once its text passes this many characters (well under a NATS message as base64). */
const CHUNK_CHARS = 192 * 1024;

/**
 * Where the next chunk starts, and the position of the project's data keys the export's columns go
 * up to; opaque to the gateway. A few dozen characters, however many columns there are.
 */
const Continuation = z.object({ afterId: Id, keysUpTo: z.number().int().min(0) });
type Continuation = z.infer<typeof Continuation>;

/**
 * The CSV export, one chunk per call (a `streamed` route: the gateway asks for the next once the
 * client has taken this one). Keyset pages by contact id, so each call reads from where the last
 * one stopped, any replica can answer it, and nothing is held between calls: memory is one page.
 *
 * The columns are the project's data keys (its registry, at most 2,000), as they were when the first
 * chunk was made: the continuation names that point (`keysUpTo`), not the keys (decisions.md §15),
 * and since keys are only ever added after it, each chunk reads the same list back.
 */
export class Exporter {
  constructor(
    private readonly sql: Sql,
    private readonly segments: SegmentQueries,
  ) {}

  async chunk(projectId: string, segmentId: string | undefined, continuation: string | undefined): Promise<{ csv: string; next?: string }> {
    const state = continuation === undefined ? undefined : parseContinuation(continuation);
    const keysUpTo = state?.keysUpTo ?? (await dataKeysRepo.lastPosition(this.sql, projectId));
    const keys = await dataKeysRepo.upTo(this.sql, projectId, keysUpTo);
    let afterId = state?.afterId;
    let csv = state ? "" : exportHeader(keys);
    for (;;) {
      const rows = await this.segments.exportPage(projectId, segmentId, afterId, PAGE_ROWS);
      for (const row of rows) {
        csv += exportLine(row, keys);
        afterId = row.id;
        if (csv.length >= CHUNK_CHARS) return { csv, next: JSON.stringify({ afterId, keysUpTo } satisfies Continuation) };
      }
      if (rows.length < PAGE_ROWS) return { csv };
    }
  }
}

function parseContinuation(text: string): Continuation {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const parsed = Continuation.safeParse(value);
  if (!parsed.success) throw AppError.validation("malformed export continuation");
  return parsed.data;
}

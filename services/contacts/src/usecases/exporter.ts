import { z } from "zod";
import { AppError, Id } from "@mailroom/contracts";
import { exportHeader, exportLine } from "../domain/csv-export.js";
import type { SegmentQueries } from "./segment-queries.js";

/** Rows read per query. */
const PAGE_ROWS = 500;
/** A chunk ends once its text passes this many characters (well under a NATS message as base64). */
const CHUNK_CHARS = 192 * 1024;

/** Where the next chunk starts, and the columns chosen for the first; opaque to the gateway. */
const Continuation = z.object({ afterId: Id, keys: z.array(z.string()) });
type Continuation = z.infer<typeof Continuation>;

/**
 * The CSV export, one chunk per call (a `streamed` route: the gateway asks for the next once the
 * client has taken this one). Keyset pages by contact id, so each call reads from where the last
 * one stopped, any replica can answer it, and nothing is held between calls: memory is one page.
 * The columns are the data keys of the whole audience, read once before the first row.
 */
export class Exporter {
  constructor(private readonly segments: SegmentQueries) {}

  async chunk(projectId: string, segmentId: string | undefined, continuation: string | undefined): Promise<{ csv: string; next?: string }> {
    let state: Continuation | undefined;
    if (continuation !== undefined) {
      let value: unknown;
      try {
        value = JSON.parse(continuation);
      } catch {
        value = undefined;
      }
      const parsed = Continuation.safeParse(value);
      if (!parsed.success) throw AppError.validation("malformed export continuation");
      state = parsed.data;
    }
    let keys = state?.keys;
    let afterId = state?.afterId;
    let csv = "";
    for (;;) {
      const page = await this.segments.exportPage(projectId, segmentId, afterId, PAGE_ROWS, keys === undefined);
      if (keys === undefined) {
        keys = page.keys ?? [];
        csv += exportHeader(keys);
      }
      for (const row of page.rows) {
        csv += exportLine(row, keys);
        afterId = row.id;
        if (csv.length >= CHUNK_CHARS) return { csv, next: JSON.stringify({ afterId, keys }) };
      }
      if (page.rows.length < PAGE_ROWS) return { csv };
    }
  }
}

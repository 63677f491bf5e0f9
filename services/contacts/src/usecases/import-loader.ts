import { Readable } from "node:stream";
import { parse, type CsvError } from "csv-parse";
import type { Sql } from "@mailroom/kit";
import { importsRepo } from "../db/imports-repo.js";
import { importColumns, stageRow, type ImportColumns } from "../domain/csv-import.js";
import { loadByCopy } from "./import-copy-load.js";
import { CopySink, type LoadResult, PROGRESS_EVERY, RowErrors, stagedLine } from "./import-staging.js";

/** A record longer than this is a bad row (it bounds what one row can make the parser hold). */
const MAX_RECORD_BYTES = 1024 * 1024;
/** COPY text is sent in pieces of about this size. */
const COPY_PIECE = 256 * 1024;

export const UPLOAD_EXPIRED = "the upload expired before the import could read it; upload the file again";

/** The upload's bytes, read from the start each time; null once it is gone. */
export type Upload = () => Promise<AsyncIterable<Uint8Array> | null>;

/**
 * Loads an uploaded file into the import's staging table. PostgreSQL parses it when it reads it
 * exactly as csv-parse would (import-copy-load.ts; the benchmark's 1M rows are staged in about 5 s
 * instead of 9); any other file, or one PostgreSQL refuses on the way, is read again from the start
 * and parsed here. The staged rows, their numbers and the row errors are the same either way.
 */
export async function loadImport(sql: Sql, id: string, token: string, upload: Upload, signal: AbortSignal): Promise<LoadResult> {
  const first = await upload();
  if (!first) return { ok: false, error: UPLOAD_EXPIRED };
  const copied = await loadByCopy(sql, id, token, first, signal);
  if (copied) return copied;
  const again = await upload();
  if (!again) return { ok: false, error: UPLOAD_EXPIRED };
  return loadByParser(sql, id, token, again, signal);
}

/** How the parser reads an import (its first good record is the header). */
const PARSER_OPTIONS = {
  bom: true,
  relax_column_count: true,
  relax_quotes: true,
  skip_empty_lines: true,
  skip_records_with_error: true,
  max_record_size: MAX_RECORD_BYTES,
} as const;

/**
 * The columns an upload's header names, read as the loader will read it (at most a record's bound
 * of the file); null when the file has no usable header (the import then fails with the reason).
 */
export async function uploadColumns(source: AsyncIterable<Uint8Array>): Promise<ImportColumns | null> {
  const parser = parse(PARSER_OPTIONS);
  const input = Readable.from(source, { objectMode: false });
  input.on("error", (err) => parser.destroy(err));
  input.pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const columns = importColumns(record);
      return "error" in columns ? null : columns;
    }
    return null;
  } catch {
    return null;
  } finally {
    input.destroy();
  }
}

function csvErrorMessage(err: CsvError): string {
  if (err.code === "CSV_QUOTE_NOT_CLOSED") return "a quoted field is not closed before the end of the file";
  if (err.code === "CSV_MAX_RECORD_SIZE") return `the row is longer than ${MAX_RECORD_BYTES} bytes`;
  return `malformed CSV: ${err.message.split(/[.:]/)[0]}`;
}

/**
 * Streams an uploaded file through the CSV parser into the import's staging table with one COPY:
 * the bytes are read from the blob store as the parser takes them, and the parser gives records as
 * COPY takes them (its backpressure), so memory holds a few chunks whatever the file's size. Bad
 * rows are counted (the first MAX_IMPORT_ERRORS kept with their row number) and left out.
 */
async function loadByParser(sql: Sql, id: string, token: string, source: AsyncIterable<Uint8Array>, signal: AbortSignal): Promise<LoadResult> {
  await importsRepo.createStaging(sql, id);
  const parser = parse(PARSER_OPTIONS);
  // The parser reports a skipped record as it meets it, before the records ahead of it are read
  // out: each skip is kept with how many records had been parsed then, to number rows in file order.
  // (Its `info` option would number each record for us, at twice the parsing time.)
  const skips: Array<{ after: number; message: string }> = [];
  parser.on("skip", (err: CsvError) => skips.push({ after: parser.info.records, message: csvErrorMessage(err) }));
  const input = Readable.from(source, { objectMode: false });
  input.on("error", (err) => parser.destroy(err));
  input.pipe(parser);

  const bad = new RowErrors();
  let skipped = 0;
  let lastRow = 1;
  /** Skips met before the record numbered `records` (by the parser's count) are rows before it. */
  const flushSkips = (records: number) => {
    while (skips.length > 0 && skips[0]!.after < records) {
      const s = skips.shift()!;
      skipped++;
      lastRow = s.after + skipped;
      bad.add(lastRow, s.message);
    }
  };

  // The COPY has a connection of its own: postgres.js pipelines queries onto busy pooled connections,
  // and a query sent on one during a COPY (this loader's own progress write, another tenant's read)
  // fails it with COPY_IN_PROGRESS.
  const conn = await sql.reserve();
  let copy: CopySink | undefined;
  let columns: ImportColumns | undefined;
  let piece = "";
  const send = async (force: boolean) => {
    if (!copy || (!force && piece.length < COPY_PIECE)) return;
    const text = piece;
    piece = "";
    await copy.write(text);
  };
  try {
    let records = 0;
    for await (const record of parser as AsyncIterable<string[]>) {
      if (signal.aborted) throw signal.reason;
      if (copy?.failed) throw copy.failed;
      records++;
      flushSkips(records);
      const row = records + skipped;
      lastRow = row;
      if (!columns) {
        const found = importColumns(record);
        if ("error" in found) return { ok: false, error: found.error };
        columns = found;
        copy = new CopySink(await importsRepo.copyIn(conn, id), (err) => parser.destroy(err));
        continue;
      }
      const staged = stageRow(record, columns);
      if ("error" in staged) bad.add(row, staged.error);
      else {
        piece += stagedLine(row, staged);
        await send(false);
      }
      if (row % PROGRESS_EVERY === 0) await importsRepo.loadProgress(sql, id, token, { rows: row - 1, failed: bad.failed, errors: bad.errors });
    }
    flushSkips(Number.POSITIVE_INFINITY);
    if (!columns) return { ok: false, error: "the file is empty: it needs a header row with an email column" };
    await send(true);
    await copy!.end();
  } catch (err) {
    copy?.destroy(err as Error);
    throw copy?.failed ?? err;
  } finally {
    input.destroy();
    conn.release();
  }
  await importsRepo.indexStaging(sql, id);
  return { ok: true, rows: lastRow - 1, failed: bad.failed, errors: bad.errors };
}

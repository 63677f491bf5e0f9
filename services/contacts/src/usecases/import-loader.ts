import { once } from "node:events";
import { Readable, type Writable } from "node:stream";
import { parse, type CsvError } from "csv-parse";
import { MAX_IMPORT_ERRORS, type ImportRowError } from "@mailroom/contracts";
import { copyEscape, type Sql } from "@mailroom/kit";
import { importsRepo } from "../db/imports-repo.js";
import { importColumns, stageRow, type ImportColumns } from "../domain/csv-import.js";

/** A record longer than this is a bad row (it bounds what one row can make the parser hold). */
const MAX_RECORD_BYTES = 1024 * 1024;
/** COPY text is sent in pieces of about this size. */
const COPY_PIECE = 256 * 1024;
/** Loading progress is written every this many rows. */
const PROGRESS_EVERY = 20_000;

export type LoadResult = { ok: true; rows: number; failed: number; errors: ImportRowError[] } | { ok: false; error: string };

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
export async function loadImport(
  sql: Sql,
  id: string,
  source: AsyncIterable<Uint8Array>,
  signal: AbortSignal,
): Promise<LoadResult> {
  await importsRepo.createStaging(sql, id);
  const parser = parse({
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  // The parser reports a skipped record as it meets it, before the records ahead of it are read
  // out: each skip is kept with how many records had been parsed then, to number rows in file order.
  // (Its `info` option would number each record for us, at twice the parsing time.)
  const skips: Array<{ after: number; message: string }> = [];
  parser.on("skip", (err: CsvError) => skips.push({ after: parser.info.records, message: csvErrorMessage(err) }));
  const input = Readable.from(source, { objectMode: false });
  input.on("error", (err) => parser.destroy(err));
  input.pipe(parser);

  const errors: ImportRowError[] = [];
  let failed = 0;
  let skipped = 0;
  let lastRow = 1;
  const fail = (row: number, message: string) => {
    failed++;
    if (errors.length < MAX_IMPORT_ERRORS) errors.push({ row, message });
  };
  /** Skips met before the record numbered `records` (by the parser's count) are rows before it. */
  const flushSkips = (records: number) => {
    while (skips.length > 0 && skips[0]!.after < records) {
      const s = skips.shift()!;
      skipped++;
      lastRow = s.after + skipped;
      fail(lastRow, s.message);
    }
  };

  // The COPY has a connection of its own: postgres.js pipelines queries onto busy pooled connections,
  // and a query sent on one during a COPY (this loader's own progress write, another tenant's read)
  // fails it with COPY_IN_PROGRESS.
  const conn = await sql.reserve();
  let copy: Writable | undefined;
  // A COPY the server refuses emits 'error' on its stream whenever it happens: kept here and thrown
  // by the loop, never an unhandled 'error' that would end the process.
  let copyError: Error | undefined;
  let columns: ImportColumns | undefined;
  let piece = "";
  const send = async (force: boolean) => {
    if (!copy || (!force && piece.length < COPY_PIECE)) return;
    const ok = copy.write(piece);
    piece = "";
    if (!ok) await once(copy, "drain");
  };
  try {
    let records = 0;
    for await (const record of parser as AsyncIterable<string[]>) {
      if (signal.aborted) throw signal.reason;
      if (copyError) throw copyError;
      records++;
      flushSkips(records);
      const row = records + skipped;
      lastRow = row;
      if (!columns) {
        const found = importColumns(record);
        if ("error" in found) return { ok: false, error: found.error };
        columns = found;
        copy = await importsRepo.copyIn(conn, id);
        copy.on("error", (err) => {
          copyError = err;
          parser.destroy(err);
        });
        continue;
      }
      const staged = stageRow(record, columns);
      if ("error" in staged) fail(row, staged.error);
      else {
        const sub = staged.subscribed === null ? "\\N" : staged.subscribed ? "t" : "f";
        piece += `${row}\t${copyEscape(staged.email.toLowerCase())}\t${copyEscape(staged.email)}\t${sub}\t${copyEscape(JSON.stringify(staged.data))}\n`;
        await send(false);
      }
      if (row % PROGRESS_EVERY === 0) await importsRepo.loadProgress(sql, id, { rows: row - 1, failed, errors });
    }
    flushSkips(Number.POSITIVE_INFINITY);
    if (!columns) return { ok: false, error: "the file is empty: it needs a header row with an email column" };
    await send(true);
    copy!.end();
    await once(copy!, "finish");
    if (copyError) throw copyError;
  } catch (err) {
    copy?.destroy(err as Error);
    throw copyError ?? err;
  } finally {
    input.destroy();
    conn.release();
  }
  await importsRepo.indexStaging(sql, id);
  return { ok: true, rows: lastRow - 1, failed, errors };
}

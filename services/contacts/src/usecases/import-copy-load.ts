import type { Sql } from "@mailroom/kit";
import { importsRepo } from "../db/imports-repo.js";
import { CopyableCsv, copyableHeader, MAX_COPY_DATA_COLUMNS, type CopyableHead } from "../domain/csv-copy.js";
import { importColumns, stageRow, type ImportColumns } from "../domain/csv-import.js";
import { afterCopy, CopySink, type LoadResult, PROGRESS_EVERY, RowErrors, stagedLine } from "./import-staging.js";

/** Rows SQL could not stage are read back this many at a time. */
const UNCERTAIN_ROWS = 1000;

/**
 * Loads a file PostgreSQL parses itself (domain/csv-copy.ts says which files): its lines after the
 * header go by one COPY … FORMAT csv into a table of cells, numbered in file order; the rows SQL can
 * stage exactly as stageRow would (almost all) become the staging table in one statement; the others
 * are read back in file order and go through stageRow, the one source of row errors on this path.
 * The file is checked as it streams by: the moment it turns out to be one for csv-parse, or
 * PostgreSQL refuses it, this path gives up (null) and the caller parses the file from the start.
 */
export async function loadByCopy(sql: Sql, id: string, token: string, source: AsyncIterable<Uint8Array>, signal: AbortSignal): Promise<LoadResult | null> {
  const it = source[Symbol.asyncIterator]();
  try {
    const head = await readHeader(it);
    if (!head) return null;
    const columns = importColumns(head.fields);
    if ("error" in columns) return { ok: false, error: columns.error };
    if (columns.data.length > MAX_COPY_DATA_COLUMNS) return null;
    await importsRepo.dropStaging(sql, id);
    await importsRepo.createCells(sql, id, columns);
    const lines = await copyCells(sql, id, token, columns, head.rest, it, signal);
    if (lines === null) {
      await importsRepo.dropCells(sql, id);
      return null;
    }
    const staged = await importsRepo.stageCells(sql, id, columns);
    const bad = staged < lines ? await stageUncertain(sql, id, columns, signal) : new RowErrors();
    await importsRepo.dropCells(sql, id);
    await importsRepo.indexStaging(sql, id);
    return { ok: true, rows: lines, failed: bad.failed, errors: bad.errors };
  } finally {
    await it.return?.();
  }
}

/** The header row, and the bytes read past it; null when the file is not one PostgreSQL may parse. */
async function readHeader(it: AsyncIterator<Uint8Array>): Promise<CopyableHead | null> {
  let head = Buffer.alloc(0);
  for (;;) {
    const next = await it.next();
    if (next.done) return null;
    head = Buffer.concat([head, next.value]);
    const found = copyableHeader(head);
    if (found !== "more") return found;
  }
}

/**
 * Sends the lines after the header through COPY, checking them as they go: how many there were, or
 * null when the file turned out to be one for csv-parse, or PostgreSQL refused it or read another
 * number of rows. The COPY has a connection of its own (see loadByParser); the progress write
 * takes another.
 */
async function copyCells(
  sql: Sql,
  id: string,
  token: string,
  columns: ImportColumns,
  rest: Buffer,
  it: AsyncIterator<Uint8Array>,
  signal: AbortSignal,
): Promise<number | null> {
  const scan = new CopyableCsv();
  const conn = await sql.reserve();
  const copy = new CopySink(await importsRepo.copyCellsIn(conn, id, columns));
  let reported = 0;
  try {
    for (let chunk: Buffer | null = rest; chunk; ) {
      if (signal.aborted) throw signal.reason;
      if (!scan.push(chunk)) throw new NotCopyable();
      if (chunk.length > 0) await copy.write(chunk);
      if (scan.lines - reported >= PROGRESS_EVERY) {
        reported = scan.lines;
        await importsRepo.loadProgress(sql, id, token, { rows: reported, failed: 0, errors: [] });
      }
      const next = await it.next();
      chunk = next.done ? null : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    }
    scan.end();
    // Its outcome is the count on its own connection (a refused COPY wrote nothing): the end of a
    // file is where a short last row shows, after the last byte.
    copy.close();
    const rows = await afterCopy(() => importsRepo.cellRows(conn, id));
    return rows === scan.lines && !copy.failed ? rows : null;
  } catch (err) {
    copy.destroy(err as Error);
    if (err instanceof NotCopyable || (copy.failed && !signal.aborted)) return null;
    throw err;
  } finally {
    conn.release();
  }
}

/** The file is one for csv-parse after all. */
class NotCopyable extends Error {}

/** The rows SQL could not stage, through stageRow: the good ones staged, the others counted. */
async function stageUncertain(sql: Sql, id: string, columns: ImportColumns, signal: AbortSignal): Promise<RowErrors> {
  const bad = new RowErrors();
  const conn = await sql.reserve();
  let copy: CopySink | undefined;
  try {
    for await (const rows of importsRepo.uncertainCells(sql, id, columns, UNCERTAIN_ROWS)) {
      if (signal.aborted) throw signal.reason;
      let text = "";
      for (const { row, fields } of rows) {
        const staged = stageRow(fields, columns);
        if ("error" in staged) bad.add(row, staged.error);
        else text += stagedLine(row, staged);
      }
      if (text === "") continue;
      copy ??= new CopySink(await importsRepo.copyIn(conn, id));
      await copy.write(text);
    }
    await copy?.end();
  } catch (err) {
    copy?.destroy(err as Error);
    throw copy?.failed ?? err;
  } finally {
    conn.release();
  }
  return bad;
}

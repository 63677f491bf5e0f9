/**
 * When PostgreSQL may parse an uploaded CSV file itself (`COPY … FORMAT csv`: about 1 s for 1M rows
 * where csv-parse, stageRow and the COPY text took 7 s of this process) and stage it with SQL: only
 * when both parsers read the file the same way and the SQL stages a row exactly as `stageRow`
 * would. Anything else falls back to csv-parse, so the import's rows, row numbers and row errors
 * never depend on the path taken.
 *
 * The file must have no quote (PostgreSQL opens a quoted section at a quote anywhere in a field,
 * csv-parse with `relax_quotes` only at its start), no carriage return (csv-parse takes the first
 * line ending it meets for all lines, PostgreSQL refuses a mix), no empty line (csv-parse skips one
 * without counting it, PostgreSQL reads a row of nulls or refuses it), no NUL byte, no line starting
 * with a backslash (PostgreSQL takes `\.` alone as the end of the data) and no line longer than
 * MAX_COPY_LINE_BYTES (csv-parse refuses records over its own bound). Whatever else PostgreSQL reads
 * differently makes its COPY fail: a row with more or fewer fields than the header, bytes that are
 * not UTF-8. Those files too are parsed again by csv-parse.
 */

/** A line longer than this sends the file to csv-parse (whose bound is far above any good row). */
export const MAX_COPY_LINE_BYTES = 64 * 1024;

/** Data columns at most: PostgreSQL's json_build_object takes 100 arguments, a key and a value each. */
export const MAX_COPY_DATA_COLUMNS = 50;

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const NUL = 0x00;
const BACKSLASH = 0x5c;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The header of a file PostgreSQL may parse, and the bytes after it. */
export interface CopyableHead {
  fields: string[];
  rest: Buffer;
}

/**
 * The header row from the first bytes of a file: its fields and the bytes after its newline;
 * "more" while no newline is in `head` yet; null when the file is not for PostgreSQL to parse.
 */
export function copyableHeader(head: Buffer): CopyableHead | "more" | null {
  const nl = head.indexOf(LF);
  if (nl === -1) return head.length < MAX_COPY_LINE_BYTES ? "more" : null;
  let line = head.subarray(0, nl);
  // csv-parse's `bom` option
  if (line.subarray(0, 3).equals(BOM)) line = line.subarray(3);
  if (line.length === 0 || line.indexOf(QUOTE) !== -1 || line.indexOf(CR) !== -1 || line.indexOf(NUL) !== -1) return null;
  return { fields: line.toString("utf8").split(","), rest: head.subarray(nl + 1) };
}

/** Reads the data lines of a file (its header excluded) as they stream by, and counts them. */
export class CopyableCsv {
  /** Data lines seen so far. */
  lines = 0;
  /** Why the file is not for PostgreSQL to parse, once seen. */
  refused: string | null = null;
  /** Bytes of the current line so far: 0 at the start of a line. */
  private lineBytes = 0;

  /** The next bytes of the file; false once it is not for PostgreSQL to parse. */
  push(chunk: Buffer): boolean {
    if (this.refused) return false;
    if (chunk.indexOf(QUOTE) !== -1) return this.refuse("a quote");
    if (chunk.indexOf(CR) !== -1) return this.refuse("a carriage return");
    if (chunk.indexOf(NUL) !== -1) return this.refuse("a NUL byte");
    for (let start = 0; start < chunk.length; ) {
      const nl = chunk.indexOf(LF, start);
      const end = nl === -1 ? chunk.length : nl;
      if (this.lineBytes === 0) {
        if (end === start && nl !== -1) return this.refuse("an empty line");
        if (chunk[start] === BACKSLASH) return this.refuse("a line starting with a backslash");
      }
      this.lineBytes += end - start;
      if (this.lineBytes > MAX_COPY_LINE_BYTES) return this.refuse("a long line");
      if (nl === -1) break;
      this.lines++;
      this.lineBytes = 0;
      start = nl + 1;
    }
    return true;
  }

  /** The end of the file: its last line counts even without a newline. */
  end(): boolean {
    if (this.refused) return false;
    if (this.lineBytes > 0) this.lines++;
    this.lineBytes = 0;
    return true;
  }

  private refuse(why: string): false {
    this.refused = why;
    return false;
  }
}

/**
 * zod's email pattern (`z.email()`, behind EmailAddress), as PostgreSQL writes it: the same
 * expression with the hyphens its brackets escape written last instead (a literal either way). A
 * cell that matches it and is at most 254 characters is an address EmailAddress takes unchanged
 * (ASCII only, so nothing to trim and the same lowercase everywhere); any other cell goes through
 * `stageRow`. csv-copy.test.ts fails when zod's pattern changes, so the two cannot drift apart.
 */
export const SQL_EMAIL_PATTERN = "^(?:[A-Za-z0-9_'+-]+\\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\\.)+[A-Za-z]{2,}$";

import { once } from "node:events";
import type { Writable } from "node:stream";
import { MAX_IMPORT_ERRORS, type ImportRowError } from "@mailroom/contracts";
import { copyEscape } from "@mailroom/kit";
import type { StagedRow } from "../domain/csv-import.js";

/** What both ways of loading a file (import-loader.ts, import-copy-load.ts) share. */

/** Loading progress is written every this many rows. */
export const PROGRESS_EVERY = 20_000;

export type LoadResult = { ok: true; rows: number; failed: number; errors: ImportRowError[] } | { ok: false; error: string };

/** The bad rows of a file: counted, the first MAX_IMPORT_ERRORS kept with their row number. */
export class RowErrors {
  failed = 0;
  readonly errors: ImportRowError[] = [];

  add(row: number, message: string): void {
    this.failed++;
    if (this.errors.length < MAX_IMPORT_ERRORS) this.errors.push({ row, message });
  }
}

/** A staged row as a line of the staging table's COPY (`row_no, email_key, email, subscribed, data`). */
export function stagedLine(row: number, staged: StagedRow): string {
  const sub = staged.subscribed === null ? "\\N" : staged.subscribed ? "t" : "f";
  return `${row}\t${copyEscape(staged.email.toLowerCase())}\t${copyEscape(staged.email)}\t${sub}\t${copyEscape(JSON.stringify(staged.data))}\n`;
}

/**
 * A COPY's stream with its backpressure, and the error a COPY the server refuses emits whenever it
 * happens: kept and thrown by the next write or the end, never an unhandled 'error' that would end
 * the process.
 */
export class CopySink {
  private error: Error | undefined;

  constructor(
    private readonly stream: Writable,
    onError?: (err: Error) => void,
  ) {
    stream.on("error", (err) => {
      this.error = err;
      onError?.(err);
    });
  }

  get failed(): Error | undefined {
    return this.error;
  }

  async write(data: string | Uint8Array): Promise<void> {
    if (this.error) throw this.error;
    if (!this.stream.write(data)) await once(this.stream, "drain");
  }

  async end(): Promise<void> {
    if (this.error) throw this.error;
    this.stream.end();
    await once(this.stream, "finish");
    if (this.error) throw this.error;
  }

  /**
   * Ends the COPY without waiting for the server's answer: postgres.js 3.4.9 never settles a COPY
   * the server refuses after its last byte (kit copyText). `afterCopy` learns the outcome.
   */
  close(): void {
    if (this.error) throw this.error;
    this.stream.end();
  }

  destroy(err: Error): void {
    this.stream.destroy(err);
  }
}

/**
 * `query`, run on a closed COPY's own connection: it runs once the COPY is over, succeeded or
 * refused. postgres.js refuses queries on the connection (COPY_IN_PROGRESS) until the COPY's stream
 * has passed its last byte on, a moment after `close`.
 */
export async function afterCopy<T>(query: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await query();
    } catch (err) {
      if ((err as { code?: string })?.code !== "COPY_IN_PROGRESS" || attempt >= 10_000) throw err;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

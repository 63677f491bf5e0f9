import type { ImportRowError } from "@mailroom/contracts";
import { type Blobs, isBusUnavailable, isConnectionError, Lease, LeaseLost, type LeaseOptions, type Logger, Periodic, type Sql } from "@mailroom/kit";
import { importsRepo, type ImportRow } from "../db/imports-repo.js";
import type { ImportApplier } from "./import-applier.js";
import { loadImport } from "./import-loader.js";

export interface ImportRunnerOptions {
  /** IMPORT_CONCURRENCY: imports one replica runs at once. */
  concurrency: number;
  /** IMPORT_BATCH_ROWS: rows (by number in the file) a batch transaction covers. */
  batchRows: number;
  /** IMPORT_LEASE_MS: a runner's lease unrenewed this long frees its import for another replica. */
  leaseMs: number;
}

/**
 * Runs CSV imports off the request path (decisions.md §12): POST /contacts/imports only records one
 * and pokes this runner. Each replica runs at most `concurrency` imports and the claim takes one
 * import per project at a time, so a tenant's large file never holds more than one slot, and
 * requests never wait for it.
 *
 * Crash safety: a runner holds its import by a kit `Lease`. When it dies or stalls, the lease runs
 * out and any replica (the restarted one included) takes the import over: an import still `loading`
 * is loaded again from its upload (deleted only once loaded), one `applying` resumes after its last
 * committed batch (each batch commits with its progress). A runner that stalled and comes back
 * stops: its renewal answers that the lease is lost, and its writes check the lease's token.
 */
export class ImportRunner {
  private readonly running = new Map<string, Promise<void>>();
  private readonly loop: Periodic;
  private readonly stopping = new AbortController();
  private readonly lease: LeaseOptions;

  constructor(
    private readonly sql: Sql,
    private readonly blobs: Blobs,
    private readonly applier: ImportApplier,
    private readonly confirmations: { kick(): void },
    private readonly log: Logger,
    private readonly opts: ImportRunnerOptions,
  ) {
    this.lease = { name: "import", ms: opts.leaseMs, log };
    // Also the takeover of imports whose runner died: looked for at this pace.
    this.loop = new Periodic({ name: "import runner", everyMs: Math.max(1000, Math.floor(opts.leaseMs / 3)), runAtStart: true, log, run: () => this.fill() });
  }

  start(): void {
    this.loop.start();
  }

  /** A new import is waiting: claim it now rather than at the next tick. */
  poke(): void {
    void this.loop.kick();
  }

  async stop(): Promise<void> {
    this.stopping.abort(new Error("stopping"));
    await this.loop.stop();
    await Promise.allSettled([...this.running.values()]);
  }

  private async fill(): Promise<void> {
    while (this.running.size < this.opts.concurrency && !this.stopping.signal.aborted) {
      const claimed = await Lease.claim(this.sql, importsRepo, this.lease);
      if (!claimed) return;
      const { lease, row: job } = claimed;
      // a write that fails after the run gave up (the lease lost, the database away) is logged, never thrown unhandled
      const run = this.run(job, lease)
        .catch((err) => this.log.warn({ err: String(err), importId: job.id }, "import run ended on an error; it resumes once its lease runs out"))
        .finally(() => {
          this.running.delete(job.id);
          this.poke();
        });
      this.running.set(job.id, run);
    }
  }

  private async run(job: ImportRow, lease: Lease): Promise<void> {
    // the load and the batches stop at this replica's stop, or once another runner took the import over
    const signal = AbortSignal.any([this.stopping.signal, lease.signal]);
    try {
      let errors: ImportRowError[] = job.errors;
      if (job.phase !== "applying" || !(await importsRepo.stagingExists(this.sql, job.id))) {
        const loaded = await this.load(job, lease.token, signal);
        if (!loaded) return;
        errors = loaded;
      }
      // UNLOGGED: a crash of PostgreSQL itself (not of this service) empties the staging table, and
      // the upload is gone once loaded. Better FAILED than COMPLETED with rows silently missing.
      if (job.phase === "applying" && job.rows > job.failed && (await importsRepo.lastRow(this.sql, job.id)) === 0) {
        await importsRepo.dropStaging(this.sql, job.id);
        await importsRepo.finish(this.sql, job.id, lease.token, "FAILED", [...errors, { row: 1, message: "the staged rows were lost in a database restart; upload the file again" }].slice(-100));
        return;
      }
      await this.applyAll(job, lease.token, errors, signal);
      lease.check();
      await importsRepo.dropStaging(this.sql, job.id);
      await importsRepo.finish(this.sql, job.id, lease.token, "COMPLETED");
      this.log.info({ importId: job.id, projectId: job.project_id }, "import completed");
    } catch (err) {
      // Taken over: the import is another runner's now (its staging table too); touch nothing.
      if (lease.lost || err instanceof LeaseLost) {
        lease.lose();
        this.log.warn({ importId: job.id }, "import taken over by another runner; this one stops");
        return;
      }
      // Stopping: given back for the next claim. The database or the bus away: the lease runs out
      // and a runner takes it over.
      if (this.stopping.signal.aborted) {
        await lease.release().catch(() => undefined);
        this.log.info({ importId: job.id }, "import given back at stop; it resumes at the next claim");
        return;
      }
      // the upload is read from the blob store: a NATS server lost, or a leader elected, mid-read
      if (isConnectionError(err) || isBusUnavailable(err)) {
        this.log.warn({ err: String(err), importId: job.id }, "import interrupted; it resumes once its lease runs out");
        return;
      }
      this.log.error({ err, importId: job.id }, "import failed");
      await importsRepo.dropStaging(this.sql, job.id).catch(() => undefined);
      await importsRepo.finish(this.sql, job.id, lease.token, "FAILED", [...job.errors, { row: 1, message: "the import stopped on an internal error" }].slice(-100));
    } finally {
      await lease.end();
    }
  }

  /** Loads the upload into staging; the row errors so far, or null when the import is over (FAILED). */
  private async load(job: ImportRow, token: string, signal: AbortSignal): Promise<ImportRowError[] | null> {
    await importsRepo.startLoading(this.sql, job.id, token);
    const result = await loadImport(this.sql, job.id, token, () => this.blobs.readStream(job.blob), signal);
    if (!result.ok) {
      await importsRepo.dropStaging(this.sql, job.id);
      await importsRepo.finish(this.sql, job.id, token, "FAILED", [{ row: 1, message: result.error }]);
      await this.blobs.delete(job.blob).catch(() => undefined);
      return null;
    }
    await importsRepo.loaded(this.sql, job.id, token, result);
    job.applied_row = 0;
    // Loaded: a takeover from here on resumes from the staging table, so the upload can go.
    await this.blobs.delete(job.blob).catch(() => undefined);
    return result.errors;
  }

  private async applyAll(job: ImportRow, token: string, loadErrors: ImportRowError[], signal: AbortSignal): Promise<void> {
    const last = await importsRepo.lastRow(this.sql, job.id);
    const read = (after: number) => settledLater(this.applier.read(job.id, after, Math.min(last, after + this.opts.batchRows)));
    let next = job.applied_row < last ? read(job.applied_row) : undefined;
    // Batches in flight, oldest first: at most BATCHES_IN_FLIGHT, each committing after the one before.
    const inflight: Array<Promise<{ errors: ImportRowError[] }>> = [];
    let previous: Promise<ImportRowError[]> = Promise.resolve(loadErrors);
    try {
      for (let after = job.applied_row; after < last; after += this.opts.batchRows) {
        signal.throwIfAborted();
        const upto = Math.min(last, after + this.opts.batchRows);
        const staged = await next!;
        // the next batch's rows are read while this one is written
        next = upto < last ? read(upto) : undefined;
        const batch = settledLater(
          this.applier.apply(job, token, upto, staged, previous).then((b) => {
            if (b.result.awaitingConfirmation > 0) this.confirmations.kick();
            return b;
          }),
        );
        previous = settledLater(batch.then((b) => b.errors));
        inflight.push(batch);
        if (inflight.length >= BATCHES_IN_FLIGHT) await inflight.shift();
      }
    } finally {
      // a batch waiting on one that failed fails too; none is left running past this
      await Promise.allSettled(inflight);
    }
    for (const b of inflight) await b;
  }
}

/** Two batches: one writes its contacts while the other settles segments and commits. */
const BATCHES_IN_FLIGHT = 2;

/** `p`, marked handled: it is awaited later, and one that fails first must not count as unhandled meanwhile. */
function settledLater<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

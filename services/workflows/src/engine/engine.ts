import { type Contact, contactsRpc, type GraphEdge } from "@mailroom/contracts";
import { Lease, type LeaseOptions, type Logger, type Metrics, newId, type Sql } from "@mailroom/kit";
import type { Claim, ClaimedRow } from "../db/claims.js";
import { executionsRepo } from "../db/executions-repo.js";
import type { ExecutionRow, StepRow, StepRunRow } from "../db/rows.js";
import { nextStepId } from "../domain/graph.js";
import { Plans } from "./plans.js";
import { Interrupted, type Outcome, TransientError } from "./outcome.js";
import { runStep, StepFailure, type StepEnv } from "./steps.js";
import * as waitForEvent from "./wait-for-event.js";

export interface EngineOptions {
  leaseMs: number;
  concurrency: number;
  /** How long a step that failed transiently waits before any replica tries it again. */
  retryMs?: number;
  /**
   * How long steps under way may go on once `stop()` is called; then a webhook still waiting for its
   * answer is cut short and its execution given back to run the step again. Above the webhook timeout
   * (the default shutdown bound leaves room), so normally every step under way finishes.
   */
  stopGraceMs?: number;
}

/**
 * Runs executions. A run starts from a claim (a lease token on the execution row), held by a kit
 * `Lease` while it runs, and advances step by step; each step's result and the move to the next step
 * are written in one transaction that checks the claim, so a cancelled execution or one taken over
 * by another replica (this one stalled past the lease) stops at once.
 * A step may run again after a crash (at least once); its effects are guarded so they happen at most
 * once (idempotency keys, idempotent updates, the webhook's effect mark).
 */
export class Engine {
  private readonly queue: Claim[] = [];
  private readonly active = new Set<Promise<void>>();
  private readonly waiters: Array<() => void> = [];
  private stopped = false;
  /** Aborted when the stop grace is over: cuts short the steps still under way. */
  private readonly interrupt = new AbortController();
  private readonly plans: Plans;
  private readonly lease: LeaseOptions;

  constructor(
    private readonly sql: Sql,
    private readonly env: Omit<StepEnv, "markEffect" | "interrupt">,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    private readonly opts: EngineOptions,
  ) {
    this.plans = new Plans(sql);
    this.lease = { name: "execution", ms: opts.leaseMs, log };
  }

  /** Free slots, so pollers claim no more than this replica can start soon. */
  get capacity(): number {
    return Math.max(0, this.opts.concurrency * 2 - this.active.size - this.queue.length);
  }

  /** Resolves when the engine has room: the trigger consumer waits here instead of queueing without bound. */
  async room(): Promise<void> {
    while (this.capacity === 0 && !this.stopped) await new Promise<void>((r) => this.waiters.push(r));
  }

  submit(claims: Claim[]): void {
    if (this.stopped) {
      this.track(this.release(claims));
      return;
    }
    this.queue.push(...claims);
    this.pump();
  }

  private track(p: Promise<void>): void {
    const tracked = p.catch((err) => this.log.warn({ err: String(err) }, "release failed")).finally(() => this.active.delete(tracked));
    this.active.add(tracked);
  }

  /** Gives claims back, so another replica (or the next start) takes them at its next poll. */
  private async release(claims: Claim[]): Promise<void> {
    await Promise.all(claims.map((c) => executionsRepo.release(this.sql, c.id, c.token)));
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.opts.concurrency && this.queue.length > 0) {
      const claim = this.queue.shift()!;
      const p = this.run(claim)
        .catch((err) => this.log.error({ err, executionId: claim.id }, "execution run failed"))
        .finally(() => {
          this.active.delete(p);
          for (const w of this.waiters.splice(0)) w();
          this.pump();
        });
      this.active.add(p);
    }
  }

  /**
   * Starts nothing more: queued claims are given back at once, steps under way finish (their results
   * recorded) and their executions are given back; past the grace, a webhook still waiting is cut
   * short and its step left to run again. No execution is failed by a shutdown.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.track(this.release(this.queue.splice(0)));
    for (const w of this.waiters.splice(0)) w();
    const grace = setTimeout(() => this.interrupt.abort(), this.opts.stopGraceMs ?? 10_000);
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
    clearTimeout(grace);
  }

  private async run(claim: Claim): Promise<void> {
    let token = claim.token;
    let claimed = claim.row;
    // A claim that waited in the queue for long may have expired and been taken over: check it again.
    if (!claimed || performance.now() - (claim.at ?? 0) > this.opts.leaseMs / 2) {
      token = newId();
      claimed = (await executionsRepo.claim(this.sql, claim.id, claim.token, token, this.opts.leaseMs)) ?? undefined;
      if (!claimed) return;
    }
    const lease = Lease.hold(this.sql, executionsRepo, claim.id, token, this.lease);
    try {
      await this.runHeld(claim, claimed, lease);
    } finally {
      await lease.end();
    }
  }

  private async runHeld(claim: Claim, claimed: ClaimedRow, lease: Lease): Promise<void> {
    const token = lease.token;
    const plan = await this.plans.get(claimed.project_id, claimed.workflow_id, claimed.workflow_version);
    if (!plan) return;
    const { workflow, graph, edges } = plan;
    const { workflow_version: _, ...row } = claimed;
    let execution: ExecutionRow | null = row;
    // Fetched while the first steps' writes are under way, when a step of this run will need it.
    let contactFetch: Promise<Contact> | undefined = row.current_step_id && plan.needsContact(row.current_step_id) ? this.contact(row) : undefined;
    contactFetch?.catch(() => undefined);
    const contact = () => (contactFetch ??= this.contact(row));
    const env: StepEnv = { ...this.env, interrupt: this.interrupt.signal, markEffect: (run) => executionsRepo.markEffect(this.sql, run.id) };
    let run = claim.run && claim.run.step_id === row.current_step_id ? claim.run : undefined;

    while (execution && !this.stopped && !lease.lost) {
      const ex: ExecutionRow = execution;
      const step = graph.steps.find((s) => s.id === ex.current_step_id);
      if (!ex.current_step_id || !step) {
        execution = await this.finish(ex, token, null, ex.current_step_id ? "the step to run no longer exists" : null);
        return;
      }
      const current = run ?? (await executionsRepo.beginStepRun(this.sql, newId(), ex.id, step.id));
      run = undefined;
      let outcome: Outcome;
      const started = performance.now();
      try {
        outcome = await runStep(env, {
          workflow,
          execution: ex,
          step,
          run: current,
          contact,
          setContact: (c) => void (contactFetch = Promise.resolve(c)),
        });
      } catch (err) {
        if (err instanceof Interrupted) {
          this.log.info({ executionId: ex.id, stepId: step.id }, "step cut short by shutdown; given back to run again");
          await lease.end();
          await executionsRepo.release(this.sql, ex.id, token, current.id);
          return;
        }
        if (err instanceof TransientError) {
          this.log.warn({ err: err.message, executionId: ex.id, stepId: step.id }, "step failed transiently; retrying later");
          // no renewal after this: the backed-off expiry is when any replica tries again
          await lease.end();
          await executionsRepo.backOff(this.sql, ex.id, token, this.opts.retryMs ?? 2000);
          return;
        }
        outcome = { kind: "fail", error: err instanceof Error ? err.message : String(err) };
      }
      this.metrics.rpcDuration.observe({ operation: `workflows.step.${step.type}` }, (performance.now() - started) / 1000);
      const applied = await this.apply(ex, token, step, current.id, outcome, edges);
      execution = applied?.execution ?? null;
      run = applied?.run;
    }
    if (lease.lost) this.log.warn({ executionId: claim.id }, "execution taken over by another replica; this run stops");
    // stopped between steps: the next one runs on another replica (or after the restart) at once
    else if (execution) await lease.release();
  }

  private async contact(ex: ExecutionRow): Promise<Contact> {
    const r = await this.env.rpc.call(contactsRpc.get, { projectId: ex.project_id, id: ex.contact_id }).catch((err) => {
      throw new TransientError(`contact lookup: ${(err as Error).message}`);
    });
    if (!r.contact) throw new StepFailure("the contact no longer exists");
    return r.contact;
  }

  /**
   * Writes a step's outcome; null when the run must stop (waiting, finished, cancelled, claim lost).
   * Moving on also creates the next step's run in the same statement, so each transition is one
   * round trip; `run` is missing when that step had a run already (a re-run after a crash).
   */
  private async apply(
    ex: ExecutionRow,
    token: string,
    step: StepRow,
    runId: string,
    outcome: Outcome,
    edges: GraphEdge[],
  ): Promise<{ execution: ExecutionRow; run?: StepRunRow } | null> {
    if (outcome.kind === "fail") return this.finish(ex, token, runId, outcome.error);
    if (outcome.kind === "exit") return this.end(ex, token, runId, "EXITED", outcome.reason);
    if (outcome.kind === "wait") {
      await waitForEvent.block(this.sql, ex.id, token, step.id, runId, outcome);
      return null;
    }
    const next = nextStepId(edges, step.id, outcome.branch ? { branch: outcome.branch } : {});
    if (next === null) return this.end(ex, token, runId, "COMPLETED", null);
    return executionsRepo.advance(this.sql, ex.id, token, runId, next, newId(), this.opts.leaseMs);
  }

  private finish(ex: ExecutionRow, token: string, runId: string | null, error: string | null): Promise<null> {
    return error === null ? this.end(ex, token, runId, "COMPLETED", null) : this.end(ex, token, runId, "FAILED", null, error);
  }

  private async end(
    ex: ExecutionRow,
    token: string,
    runId: string | null,
    status: "COMPLETED" | "EXITED" | "FAILED",
    exitReason: string | null,
    error: string | null = null,
  ): Promise<null> {
    await executionsRepo.end(this.sql, ex.id, token, runId, status, exitReason, error);
    this.metrics.workflowExecutions.inc({ status });
    return null;
  }
}

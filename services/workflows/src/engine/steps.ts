import {
  AppError,
  type Contact,
  type ConditionConfig,
  contactsRpc,
  sendingRpc,
  type StepConfig,
} from "@mailroom/contracts";
import { evaluateFilter } from "@mailroom/filters";
import { type Clock, contactZone, iso, quietUntil, type RpcClient, validZone } from "@mailroom/kit";
import type { ExecutionRow, StepRow, StepRunRow, WorkflowRow } from "../db/rows.js";
import { callWebhook, WebhookError, WebhookInterrupted, type WebhookPolicy } from "../infra/webhook-client.js";
import { renderJson, renderText } from "./liquid.js";
import { Interrupted, type Outcome, TransientError } from "./outcome.js";
import { waitFor } from "./wait-for-event.js";

export interface StepEnv {
  rpc: RpcClient;
  webhook: WebhookPolicy;
  /** Real milliseconds per engine millisecond (WORKFLOWS_TIME_SCALE shrinks waits). */
  timeScale: number;
  /** The project's time, which quiet hours are read in (a test may set it; kit clock.ts). */
  clock: Clock;
  /** Called before a non-repeatable effect; false when an earlier attempt already began it. */
  markEffect(run: StepRunRow): Promise<boolean>;
  /** Aborted when a shutdown can wait no longer: a step still waiting on the outside world stops. */
  interrupt: AbortSignal;
}

export interface StepInput {
  workflow: WorkflowRow;
  execution: ExecutionRow;
  step: StepRow;
  run: StepRunRow;
  /** The contact, fetched once per run of the engine and replaced after UPDATE_CONTACT. */
  contact(): Promise<Contact>;
  setContact(c: Contact): void;
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/** Errors of another service: unavailability passes, anything else is final for this execution. */
function rethrow(err: unknown, what: string): never {
  if (err instanceof AppError && err.code !== "SERVICE_UNAVAILABLE" && err.code !== "INTERNAL_ERROR") {
    throw new StepFailure(`${what}: ${err.message}`);
  }
  throw new TransientError(`${what}: ${(err as Error).message}`);
}

/** A failure that ends the execution as FAILED with this message on the step run. */
export class StepFailure extends Error {}

const eventData = (ex: ExecutionRow) => (ex.context.event && typeof ex.context.event === "object" ? ex.context.event : {}) as Record<string, unknown>;

/** Template and Liquid variables: contact data, then the context over it, then the named objects. */
function scopeOf(i: StepInput, contact: Contact): Record<string, unknown> {
  return {
    ...contact.data,
    ...i.execution.context,
    contact: { id: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data },
    workflow: { id: i.workflow.id, name: i.workflow.name },
    execution: { id: i.execution.id, startedAt: iso(i.execution.started_at) },
    event: eventData(i.execution),
  };
}

type Runner = (env: StepEnv, i: StepInput) => Promise<Outcome>;

/**
 * Quiet hours (decisions.md §18): inside the window, in the contact's zone (its data.timezone; without
 * a valid one, the SCHEDULE trigger's timezone, else UTC), the send waits on a durable timer like a
 * DELAY's until the window ends; the timer runs the step again (waits-repo `afterTimer`), and by
 * then it is outside the window. The
 * timer is real time (the database's now()), so it lasts what remains of the window in the
 * project's time; WORKFLOWS_TIME_SCALE does not shorten it (a test sets the clock instead).
 */
function quietHold(env: StepEnv, config: StepConfig<"SEND_EMAIL">, i: StepInput, contact: Contact): Outcome | null {
  if (!config.quietHours) return null;
  const now = env.clock.now(i.execution.project_id);
  const workflowZone = (i.workflow.trigger_config as { timezone?: unknown }).timezone;
  const until = quietUntil(now, config.quietHours, contactZone(contact.data, validZone(workflowZone) ? workflowZone : "UTC"));
  if (!until) return null;
  return { kind: "wait", dueAt: new Date(Date.now() + (until.getTime() - now.getTime())), waitEvent: null };
}

const runners: Record<StepRow["type"], Runner> = {
  TRIGGER: async () => ({ kind: "next" }),

  async SEND_EMAIL(env, i) {
    const config = i.step.config as StepConfig<"SEND_EMAIL">;
    const contact = await i.contact();
    const projectId = i.execution.project_id;
    const held = quietHold(env, config, i, contact);
    if (held) return held;
    const template = await env.rpc.call(sendingRpc.templateExists, { projectId, templateId: config.templateId }).catch((e) => rethrow(e, "template lookup"));
    if (!template.exists) return { kind: "fail", error: `template ${config.templateId} no longer exists` };
    await env.rpc
      .call(sendingRpc.enqueue, {
        projectId,
        source: { type: "WORKFLOW", workflowId: i.workflow.id, executionId: i.execution.id, stepId: i.step.id },
        // the same key on every attempt: sending answers a retried enqueue with the first email
        idempotencyKey: `workflow:${i.execution.id}:${i.step.id}`,
        to: contact.email,
        contactId: contact.id,
        ...(config.from ? { from: config.from } : {}),
        ...(config.fromName ? { fromName: config.fromName } : {}),
        templateId: config.templateId,
        data: { ...contact.data, ...i.execution.context, contact: { subscribed: contact.subscribed, data: contact.data } },
        marketing: template.type === "MARKETING",
      })
      .catch((e) => rethrow(e, "send"));
    return { kind: "next" };
  },

  async DELAY(env, i) {
    const config = i.step.config as StepConfig<"DELAY">;
    const ms = (config.amount * UNIT_MS[config.unit]) / env.timeScale;
    return { kind: "wait", dueAt: new Date(Date.now() + ms), waitEvent: null };
  },

  async WAIT_FOR_EVENT(env, i) {
    return { kind: "wait", ...waitFor(i.step.config as StepConfig<"WAIT_FOR_EVENT">, env.timeScale) };
  },

  async CONDITION(_env, i) {
    const contact = await i.contact();
    const facts = { ...contact, events: [], emailActivity: [] };
    const yes = evaluateFilter(i.step.config as ConditionConfig, facts, {
      now: new Date(),
      dialect: "workflow",
      triggerEvent: { data: eventData(i.execution) },
      context: i.execution.context,
    });
    return { kind: "next", branch: yes ? "yes" : "no" };
  },

  async WEBHOOK(env, i) {
    const config = i.step.config as StepConfig<"WEBHOOK">;
    const contact = await i.contact();
    const scope = scopeOf(i, contact);
    const url = await renderText(config.url, scope);
    const payload =
      config.body !== undefined
        ? await renderJson(config.body, scope)
        : {
            contact: { email: contact.email, subscribed: contact.subscribed, data: contact.data },
            workflow: scope.workflow,
            execution: scope.execution,
            event: scope.event,
          };
    const method = config.method ?? "POST";
    const body = method === "GET" ? undefined : JSON.stringify(payload);
    if (!(await env.markEffect(i.run))) {
      return { kind: "fail", error: "the service stopped during this webhook request; webhooks are not retried" };
    }
    try {
      const { status } = await callWebhook({ url, method, headers: { "content-type": "application/json", ...config.headers }, body }, env.webhook, env.interrupt);
      return status >= 200 && status < 300 ? { kind: "next" } : { kind: "fail", error: `webhook answered ${status}` };
    } catch (err) {
      // the engine clears the effect mark with its claim: the step runs again on another replica
      if (err instanceof WebhookInterrupted) throw new Interrupted(err.message);
      if (err instanceof WebhookError) return { kind: "fail", error: `webhook failed: ${err.message}` };
      throw err;
    }
  },

  async UPDATE_CONTACT(env, i) {
    const config = i.step.config as StepConfig<"UPDATE_CONTACT">;
    const contact = await i.contact();
    // Merging the same data twice leaves the same contact, so a re-run after a crash is harmless.
    const r = await env.rpc
      .call(contactsRpc.upsert, { projectId: i.execution.project_id, email: contact.email, data: config.data, entryPoint: "api" })
      .catch((e) => rethrow(e, "contact update"));
    i.setContact(r.contact);
    return { kind: "next" };
  },

  async EXIT(_env, i) {
    const config = i.step.config as StepConfig<"EXIT">;
    return { kind: "exit", reason: config.reason ?? null };
  },
};

export async function runStep(env: StepEnv, input: StepInput): Promise<Outcome> {
  try {
    return await runners[input.step.type](env, input);
  } catch (err) {
    if (err instanceof StepFailure) return { kind: "fail", error: err.message };
    throw err;
  }
}

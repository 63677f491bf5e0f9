import { z } from "zod";
import { DisplayName, EmailAddress, Id, JsonValue, singleLine } from "../common.js";
import { ContactDataInput, EventName } from "../contacts/records.js";
import { ConditionConfig, TIME_UNITS } from "../filters.js";
import { QuietHours, TimeZone } from "../local-time.js";

export const TRIGGER_TYPES = ["EVENT", "MANUAL", "SCHEDULE"] as const;
export const TriggerType = z.enum(TRIGGER_TYPES);
export type TriggerType = z.infer<typeof TriggerType>;

/** Standard 5-field cron (minute resolution, so a tick is never shorter than a minute) or a macro;
 * the workflows service parses it fully. */
const Cron = z
  .string()
  .trim()
  .max(200)
  .regex(/^(@(yearly|annually|monthly|weekly|daily|hourly)|\S+(\s+\S+){4})$/, {
    message: "must be a 5-field cron expression or @daily-style macro",
  });

// Strict so that a config is exactly one of the three shapes: PATCH /workflows checks that the shape
// matches `triggerType`, which it could not do if unknown keys were silently dropped.
export const EventTriggerConfig = z.strictObject({ eventName: EventName });
export const ManualTriggerConfig = z.strictObject({});
export const ScheduleTriggerConfig = z.strictObject({
  cron: Cron,
  timezone: TimeZone.optional(),
  /** Each tick starts an execution per subscribed contact of the segment (of the project without one). */
  segmentId: Id.optional(),
});
export const TRIGGER_CONFIGS = {
  EVENT: EventTriggerConfig,
  MANUAL: ManualTriggerConfig,
  SCHEDULE: ScheduleTriggerConfig,
} as const satisfies Record<TriggerType, z.ZodType>;
export const TriggerConfig = z.union([EventTriggerConfig, ScheduleTriggerConfig, ManualTriggerConfig]);
export type TriggerConfig = z.infer<typeof TriggerConfig>;

export const SendEmailStepConfig = z.object({
  templateId: Id,
  from: EmailAddress.optional(),
  fromName: DisplayName.optional(),
  /** Held, not dropped: a durable timer (like a DELAY's) sends it when the window ends. */
  quietHours: QuietHours.optional(),
});
export const DelayStepConfig = z.object({ amount: z.number().int().min(1).max(100_000), unit: z.enum(TIME_UNITS) });
export const MAX_WAIT_SECONDS = 365 * 24 * 3600;
export const WaitForEventStepConfig = z.object({
  eventName: EventName,
  /** Seconds; 0 waits with no timeout (and then the step has no TIMEOUT edge). */
  timeout: z.number().int().min(0).max(MAX_WAIT_SECONDS).default(0),
});

/** HTTP token (RFC 9110) header names; values without CR or LF. */
const HttpHeaderName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: "must be an HTTP header name" });

/**
 * Headers a webhook step may not set (compared case-insensitively): the hop-by-hop fields of
 * RFC 9110 §7.6.1 and those that frame the message or name its host belong to the HTTP client, and
 * a tenant setting them could smuggle a second request or confuse a proxy. Refused on save; a stored
 * step that has one never sends it.
 */
export const RESERVED_WEBHOOK_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "content-length",
  "expect",
  "host",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const WebhookHeaders = z.record(HttpHeaderName, singleLine(4000)).superRefine((headers, ctx) => {
  for (const name of Object.keys(headers)) {
    if (RESERVED_WEBHOOK_HEADERS.has(name.toLowerCase())) {
      ctx.addIssue({ code: "custom", path: [name], message: `${name} is set by the HTTP client and cannot be configured` });
    }
  }
});

/** `url` may hold Liquid, so it is checked (scheme, private addresses) again after rendering. */
export const WebhookStepConfig = z.object({
  url: z
    .string()
    .max(2048)
    // Liquid tags may hold spaces (`{{ contact.email }}`); the rest of the URL may not
    .refine((u) => /^https?:\/\/\S+$/i.test(u.replace(/\{\{.*?\}\}|\{%.*?%\}/g, "x")), {
      message: "must be an http:// or https:// URL",
    }),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("POST"),
  headers: WebhookHeaders.optional(),
  /** Replaces the default payload; Liquid-rendered. */
  body: JsonValue.optional(),
});
export const UpdateContactStepConfig = z.object({ data: ContactDataInput });
export const ExitStepConfig = z.object({ reason: z.string().max(500).optional() });

export const STEP_CONFIGS = {
  TRIGGER: TriggerConfig,
  SEND_EMAIL: SendEmailStepConfig,
  DELAY: DelayStepConfig,
  WAIT_FOR_EVENT: WaitForEventStepConfig,
  CONDITION: ConditionConfig,
  WEBHOOK: WebhookStepConfig,
  UPDATE_CONTACT: UpdateContactStepConfig,
  EXIT: ExitStepConfig,
} as const;
export type StepType = keyof typeof STEP_CONFIGS;
export const STEP_TYPES = Object.keys(STEP_CONFIGS) as StepType[];
export const StepType = z.enum(STEP_TYPES as [StepType, ...StepType[]]);
export type StepConfig<T extends StepType = StepType> = z.infer<(typeof STEP_CONFIGS)[T]>;

export const Position = z.object({ x: z.number(), y: z.number() });
export type Position = z.infer<typeof Position>;
export const StepName = z.string().trim().min(1).max(200);

export const StepRecordFields = { id: z.string(), name: z.string(), position: Position };
const stepRecord = <T extends StepType>(type: T) =>
  z.object({ ...StepRecordFields, type: z.literal(type), config: STEP_CONFIGS[type] });

/** A step as stored and returned: `config` has the shape of its `type`. */
export const Step = z.discriminatedUnion("type", [
  stepRecord("TRIGGER"),
  stepRecord("SEND_EMAIL"),
  stepRecord("DELAY"),
  stepRecord("WAIT_FOR_EVENT"),
  stepRecord("CONDITION"),
  stepRecord("WEBHOOK"),
  stepRecord("UPDATE_CONTACT"),
  stepRecord("EXIT"),
]);
export type Step = z.infer<typeof Step>;

const newStep = <T extends Exclude<StepType, "TRIGGER">>(type: T) =>
  z.object({
    type: z.literal(type),
    name: StepName.optional(),
    config: STEP_CONFIGS[type],
    position: Position.optional(),
    /** A step id: a transition from it to the new step is added too. */
    after: Id.optional(),
  });

/** TRIGGER is absent: a workflow's one TRIGGER step is created with the workflow. */
export const CreateStepRequest = z.discriminatedUnion("type", [
  newStep("SEND_EMAIL"),
  newStep("DELAY"),
  newStep("WAIT_FOR_EVENT"),
  newStep("CONDITION"),
  newStep("WEBHOOK"),
  newStep("UPDATE_CONTACT"),
  newStep("EXIT").extend({ config: ExitStepConfig.default({}) }),
]);
export type CreateStepRequest = z.infer<typeof CreateStepRequest>;

/** `config` replaces the step's config and is checked against STEP_CONFIGS[step.type] by the
 * service, which knows the type. */
export const UpdateStepRequest = z.object({
  name: StepName.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  position: Position.optional(),
});
export type UpdateStepRequest = z.infer<typeof UpdateStepRequest>;

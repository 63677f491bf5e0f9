import { z } from "zod";
import { defineRoute } from "../route.js";
import { Id } from "../common.js";

/**
 * Double opt-in (decisions.md §14): when on, a subscription that does not come from a secret key
 * creates the contact unsubscribed and mails it a confirmation link (`/c/{token}`), rendered with
 * `templateId` (a template of the project, given `confirmUrl`) or Mailroom's default.
 */
export const DoubleOptIn = z.object({ enabled: z.boolean(), templateId: z.string().nullable() });
export type DoubleOptIn = z.infer<typeof DoubleOptIn>;

/**
 * Frequency cap (decisions.md §18): a contact gets at most `max` marketing emails (campaigns,
 * marketing workflow steps) in any `days` days; the ones over it are skipped with reason
 * `frequency_cap` and counted in the campaign's stats. Transactional mail is never capped.
 */
export const FrequencyCap = z.object({ max: z.number().int().min(1).max(1000), days: z.number().int().min(1).max(365) });
export type FrequencyCap = z.infer<typeof FrequencyCap>;

/** The reason of an email skipped by the frequency cap (its `email.failed` event and its record). */
export const FREQUENCY_CAP_REASON = "frequency_cap";

/** A project's sending settings. Tracking is on until turned off; double opt-in and the frequency cap are off until turned on. */
export const SendingSettings = z.object({
  /** Open pixel and click rewriting on every email of the project (a send's `tracking: false` still wins). */
  tracking: z.boolean(),
  doubleOptIn: DoubleOptIn,
  /** null: no cap. */
  frequencyCap: FrequencyCap.nullable(),
});
export type SendingSettings = z.infer<typeof SendingSettings>;

/** `templateId` omitted keeps the stored one; null goes back to the default email. */
export const UpdateSendingSettingsRequest = z.object({
  tracking: z.boolean().optional(),
  doubleOptIn: z.object({ enabled: z.boolean(), templateId: Id.nullable().optional() }).optional(),
  /** null turns the cap off. */
  frequencyCap: FrequencyCap.nullable().optional(),
});
export type UpdateSendingSettingsRequest = z.infer<typeof UpdateSendingSettingsRequest>;

const base = { service: "sending", auth: "secret", tag: "Settings", path: "/settings/sending" } as const;

export const settingsRoutes = [
  defineRoute({
    ...base,
    method: "GET",
    operation: "sending.settings.get",
    summary: "Get the project's sending settings",
    response: SendingSettings,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    operation: "sending.settings.update",
    role: "owner",
    summary: "Change the project's sending settings (open and click tracking, double opt-in, frequency cap)",
    body: UpdateSendingSettingsRequest,
    response: SendingSettings,
    status: 200,
  }),
];

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

/** A project's sending settings. Tracking is on until turned off; double opt-in is off until turned on. */
export const SendingSettings = z.object({
  /** Open pixel and click rewriting on every email of the project (a send's `tracking: false` still wins). */
  tracking: z.boolean(),
  doubleOptIn: DoubleOptIn,
});
export type SendingSettings = z.infer<typeof SendingSettings>;

/** `templateId` omitted keeps the stored one; null goes back to the default email. */
export const UpdateSendingSettingsRequest = z.object({
  tracking: z.boolean().optional(),
  doubleOptIn: z.object({ enabled: z.boolean(), templateId: Id.nullable().optional() }).optional(),
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
    summary: "Change the project's sending settings (open and click tracking, double opt-in)",
    body: UpdateSendingSettingsRequest,
    response: SendingSettings,
    status: 200,
  }),
];

import { z } from "zod";
import { defineRoute } from "../route.js";

/** A project's sending settings. Tracking is on until turned off. */
export const SendingSettings = z.object({
  /** Open pixel and click rewriting on every email of the project (a send's `tracking: false` still wins). */
  tracking: z.boolean(),
});
export type SendingSettings = z.infer<typeof SendingSettings>;

export const UpdateSendingSettingsRequest = SendingSettings.partial();
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
    summary: "Change the project's sending settings (open and click tracking)",
    body: UpdateSendingSettingsRequest,
    response: SendingSettings,
    status: 200,
  }),
];

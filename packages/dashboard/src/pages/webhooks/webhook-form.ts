import { CreateWebhookRequest, type WebhookEndpoint } from "@mailroom/contracts";
import { schemaResolver } from "@mantine/form";
import { normalize } from "./event-choices";

/** The create and edit form's values; `events` as the picker holds them (see event-choices.ts). */
export interface WebhookValues {
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
}

export const initialValues = (hook: WebhookEndpoint | null): WebhookValues => ({
  url: hook?.url ?? "",
  events: hook?.events ?? [],
  description: hook?.description ?? "",
  enabled: hook?.enabled ?? true,
});

/** The request the form describes: an empty description is none. */
export function toBody(v: WebhookValues) {
  const description = v.description.trim();
  return { url: v.url.trim(), events: normalize(v.events), description: description || null, enabled: v.enabled };
}

/**
 * The contract's own check of the request, its messages on the form's fields. A pattern's message
 * (`events.2`) names the pattern and goes on the picker as a whole: the index counts the saved
 * list, not the boxes on screen.
 */
export function validate(values: WebhookValues): Record<string, string> {
  const body = toBody(values);
  const errors = schemaResolver(CreateWebhookRequest, { sync: true })({ ...body, description: body.description ?? undefined });
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(errors)) {
    const [field, index] = path.split(".");
    if (field === "url") out.url = body.url ? String(message) : "Enter the endpoint's URL";
    else if (field !== "events") out[path] = String(message);
    else if (index === undefined) out.events = values.events.length === 0 ? "Choose at least one event" : String(message);
    else out.events = [out.events, `${body.events[Number(index)]}: ${message}`].filter(Boolean).join("; ");
  }
  return out;
}

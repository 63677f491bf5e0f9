import type { JsonValue } from "@mailroom/contracts";

/** The preview's and test send's sample: the send's `data` and the recipient contact's fields. */
export interface Sample {
  data: Record<string, JsonValue>;
  contact: Record<string, JsonValue>;
}

export const DEFAULT_SAMPLE = JSON.stringify({ data: { firstName: "Ada" }, contact: { email: "ada@example.com" } }, null, 2);

const isObject = (v: unknown): v is Record<string, JsonValue> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The sample as typed, or what is wrong with it (shown at the field; the preview keeps the last good one). */
export function parseSample(text: string): Sample | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: "Not valid JSON" };
  }
  if (!isObject(value)) return { error: "Must be a JSON object" };
  const { data = {}, contact = {} } = value;
  if (!isObject(data) || !isObject(contact)) return { error: '"data" and "contact" must be objects' };
  return { data, contact };
}

/**
 * The variables a send renders with (services/sending send.ts and decisions.md §4): the send's data
 * at the top, the contact under `contact`, and the three subscription links (placeholders here).
 */
export function previewVariables(sample: Sample): Record<string, unknown> {
  return {
    ...sample.data,
    contact: { email: "", subscribed: true, data: sample.data, ...sample.contact },
    unsubscribeUrl: "#unsubscribe",
    subscribeUrl: "#subscribe",
    manageUrl: "#manage",
  };
}

/** Test-send data as one-shot values: used for this send, never stored on the recipient contact. */
export function oneShotData(sample: Sample): Record<string, { value: JsonValue; persistent: false }> {
  return Object.fromEntries(Object.entries(sample.data).map(([k, v]) => [k, { value: v, persistent: false }]));
}

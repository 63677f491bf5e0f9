/**
 * Making an outbox row fit a NATS message (decisions.md §12: an event that cannot fit a NATS message is
 * truncated with a marker, never stuck in an outbox). NATS refuses a message over the server's
 * `max_payload` (headers included) for good, so publishing it as it is would fail on every attempt.
 *
 * The stand-in keeps what consumers route and match by: an event envelope keeps its envelope fields
 * (id, projectId, name, family, contactId, email, occurredAt) and its `data` becomes
 * `{truncated: true, originalBytes, …}` with the small scalar fields of the original data (ids,
 * addresses, timestamps, flags); any other payload keeps its small scalar fields beside the marker.
 * Compatibility: consumers may rely on `truncated: true` and `originalBytes`; keep both.
 */

/** A scalar field longer than this (as JSON) is left out of a stand-in. */
const FIELD_BYTES = 256;
/** All the scalar fields a stand-in keeps. */
const KEPT_BYTES = 8 * 1024;
/** An envelope field longer than this is not a field a consumer can use: null in the stand-in. */
const ENVELOPE_FIELD_BYTES = 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? "", "utf8");

/** The bytes of NATS headers as the client encodes them (`NATS/1.0\r\n`, `k: v\r\n` each, `\r\n`). */
export function headerBytes(headers: Record<string, string>): number {
  let n = 12;
  for (const [k, v] of Object.entries(headers)) n += Buffer.byteLength(k) + Buffer.byteLength(v) + 4;
  return n;
}

/** The small scalar fields of `o`, in order, within KEPT_BYTES. */
function smallScalars(o: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let total = 0;
  for (const [k, v] of Object.entries(o)) {
    if (isObject(v) || Array.isArray(v)) continue;
    const bytes = jsonBytes(k) + jsonBytes(v) + 2;
    if (bytes > FIELD_BYTES || total + bytes > KEPT_BYTES) continue;
    kept[k] = v;
    total += bytes;
  }
  return kept;
}

/**
 * `data` (a serialised payload) as it is when it fits in `maxBytes`, else its truncated stand-in.
 * Says whether it was truncated.
 */
export function fitPayload(data: string, maxBytes: number): { data: string; truncated: boolean } {
  // a UTF-16 unit is at most 3 UTF-8 bytes: most payloads need no encoding to know they fit
  if (data.length * 3 <= maxBytes || Buffer.byteLength(data, "utf8") <= maxBytes) return { data, truncated: false };
  const originalBytes = Buffer.byteLength(data, "utf8");
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    payload = null;
  }
  const marker = { truncated: true, originalBytes };
  let standIn: unknown;
  if (isObject(payload) && isObject(payload.data)) {
    const envelope: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(payload)) {
      if (k === "data") envelope.data = { ...smallScalars(payload.data), ...marker };
      else envelope[k] = !isObject(v) && !Array.isArray(v) && jsonBytes(v) <= ENVELOPE_FIELD_BYTES ? v : null;
    }
    standIn = envelope;
  } else {
    standIn = isObject(payload) ? { ...smallScalars(payload), ...marker } : marker;
  }
  const out = JSON.stringify(standIn);
  // the stand-in is a few KB at most; a server whose max_payload is smaller still gets the bare marker
  return { data: Buffer.byteLength(out, "utf8") <= maxBytes ? out : JSON.stringify(marker), truncated: true };
}

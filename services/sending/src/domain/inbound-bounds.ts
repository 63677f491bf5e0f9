/**
 * Byte bounds on what inbound mail puts in an `email.received` event (decisions.md §12: bytes, not
 * characters; subject and headers too). Pure functions; the use case applies them before parsing
 * (the header section) and before sanitizing (the body).
 */

/** Bounds of one email.received. The event must fit a NATS message with room to spare. */
export const RECEIVED_LIMITS = {
  /** The body (sanitized HTML or plain text). */
  bodyBytes: 256 * 1024,
  subjectBytes: 2048,
  /** `from`, `to` and each of `recipients`: RFC 5321 allows 254 characters in an address. */
  addressBytes: 320,
  fromHeaderBytes: 1024,
  messageIdBytes: 998,
} as const;

/** Bounds of the header section, applied to the raw message before it is parsed or authenticated. */
export const HEADER_LIMITS = {
  /** One header field with its folded continuation lines. */
  fieldBytes: 8 * 1024,
  /** All header fields together; fields beyond are dropped. */
  sectionBytes: 64 * 1024,
} as const;

/** The longest prefix of `buf` of at most `max` bytes that does not end inside a UTF-8 sequence. */
export function utf8Prefix(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let end = max;
  // step back over continuation bytes (10xxxxxx) to the start of the cut character, and drop it
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

/** `s` cut to at most `max` UTF-8 bytes on a character boundary; says whether it was cut. */
export function cutUtf8(s: string, max: number): { value: string; cut: boolean } {
  // a string of n UTF-16 units has at most 3n UTF-8 bytes: short strings need no encoding
  if (s.length * 3 <= max) return { value: s, cut: false };
  const bytes = Buffer.from(s, "utf8");
  if (bytes.length <= max) return { value: s, cut: false };
  return { value: utf8Prefix(bytes, max).toString("utf8"), cut: true };
}

/** C0 controls other than tab, line feed and carriage return: nothing a reader needs, six bytes each in JSON. */
export const stripControls = (s: string) => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "");

/**
 * HTML already sanitized, cut to `max` bytes: whatever is cut off, a tag or an entity left open at the
 * end is dropped too, so the result never ends in half a tag.
 */
export function cutSanitizedHtml(html: string, max: number): { value: string; cut: boolean } {
  const r = cutUtf8(html, max);
  if (!r.cut) return r;
  return { value: r.value.replace(/<[^>]*$/, "").replace(/&[#a-zA-Z0-9]*$/, ""), cut: true };
}

function headerEnd(raw: Buffer): { end: number; bodyStart: number } | null {
  // the first empty line ends the header section (CRLF, or bare LF from sloppy senders)
  const crlf = raw.indexOf("\r\n\r\n");
  const lf = raw.indexOf("\n\n");
  if (crlf === -1 && lf === -1) return null;
  if (lf === -1 || (crlf !== -1 && crlf < lf)) return { end: crlf + 2, bodyStart: crlf + 4 };
  return { end: lf + 1, bodyStart: lf + 2 };
}

const CRLF = Buffer.from("\r\n");

/**
 * The message with every header field cut to HEADER_LIMITS.fieldBytes and the fields beyond
 * HEADER_LIMITS.sectionBytes dropped; the body untouched. A message with no end of headers (all
 * headers, or a prefix cut inside them) keeps the fields that fit and gets an empty body.
 */
export function boundHeaderSection(raw: Buffer, limits: { fieldBytes: number; sectionBytes: number } = HEADER_LIMITS): { raw: Buffer; cut: boolean } {
  const found = headerEnd(raw);
  const head = found ? raw.subarray(0, found.end) : raw;
  if (found && head.length <= limits.fieldBytes) return { raw, cut: false };
  const fields: Buffer[] = [];
  let start = 0;
  // a field runs until a line that does not start with white space (RFC 5322 folding)
  for (let i = 0; i < head.length; i++) {
    if (head[i] !== 0x0a) continue;
    const next = head[i + 1];
    if (next === 0x20 || next === 0x09) continue;
    fields.push(head.subarray(start, i + 1));
    start = i + 1;
  }
  if (start < head.length) fields.push(head.subarray(start));
  let cut = false;
  let total = 0;
  const kept: Buffer[] = [];
  for (const field of fields) {
    let f = field;
    if (f.length > limits.fieldBytes) {
      f = Buffer.concat([trimLineEnd(utf8Prefix(f, limits.fieldBytes - 2)), CRLF]);
      cut = true;
    }
    if (total + f.length > limits.sectionBytes) {
      cut = true;
      break;
    }
    total += f.length;
    kept.push(f);
  }
  if (!cut) return { raw, cut: false };
  const body = found ? raw.subarray(found.bodyStart) : Buffer.alloc(0);
  return { raw: Buffer.concat([...kept, CRLF, body]), cut: true };
}

/** A cut field must not end in half a line break (a lone CR would read as a folded line). */
function trimLineEnd(b: Buffer): Buffer {
  let end = b.length;
  while (end > 0 && (b[end - 1] === 0x0d || b[end - 1] === 0x0a)) end--;
  return b.subarray(0, end);
}

import { createHmac, timingSafeEqual } from "node:crypto";
import { FORM_HIDDEN, type ErrorDetail, type FormField, type VerifyAddressResult } from "@mailroom/contracts";

/**
 * The rules of a signup form's submission (decisions.md §17), pure so they are unit-tested without
 * a server. A submission passes three defences before its fields are read: the signed render time
 * (the page it came from was rendered by us, for this form), the honeypot (a field people never see),
 * and the fill time (people take more than two seconds). The per-address limit is the gateway's and
 * the address check the verify service's.
 */

/** The render time's signature: an HMAC of the form id and the time, so neither can be changed. */
export function signRenderTime(secret: string, formId: string, renderedAt: number): string {
  return createHmac("sha256", secret).update(`form-render\n${formId}\n${renderedAt}`).digest("base64url");
}

/** What the hosted page puts in its hidden fields. */
export function renderToken(secret: string, formId: string, now: number): { renderedAt: string; signature: string } {
  return { renderedAt: String(now), signature: signRenderTime(secret, formId, now) };
}

export type Submitted = Record<string, unknown>;

/**
 * Why a submission is not a person's:
 * - `token`: no render time, a forged one, or one too old (a page kept open for a week): refused
 *   with an error that says to load the page again, since a person can hit it too.
 * - `honeypot`, `too_fast`: a bot. It gets the same answer as a person (the success page), so it
 *   learns nothing it could adapt to, and nothing is written.
 */
export type BotCheck = { ok: true } | { ok: false; kind: "token" | "honeypot" | "too_fast" };

export function checkHuman(
  submitted: Submitted,
  opts: { secret: string; formId: string; now: number; minFillMs: number; maxAgeMs: number },
): BotCheck {
  const at = submitted[FORM_HIDDEN.renderedAt];
  const signature = submitted[FORM_HIDDEN.signature];
  if (typeof at !== "string" || !/^\d{1,16}$/.test(at) || typeof signature !== "string") return { ok: false, kind: "token" };
  const expected = Buffer.from(signRenderTime(opts.secret, opts.formId, Number(at)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, kind: "token" };
  const honeypot = submitted[FORM_HIDDEN.honeypot];
  if (honeypot !== undefined && honeypot !== "" && honeypot !== null && honeypot !== false) return { ok: false, kind: "honeypot" };
  const age = opts.now - Number(at);
  if (age < opts.minFillMs) return { ok: false, kind: "too_fast" };
  if (age > opts.maxAgeMs) return { ok: false, kind: "token" };
  return { ok: true };
}

/** A submission's accepted values: the address, what goes on the contact, and what the event carries. */
export interface FormValues {
  email: string;
  /** Contact data (not the address; empty text and unchosen selects are left out, as on /v1/track). */
  data: Record<string, string | boolean>;
  /** Every field's value by key, the address included (`form.submitted`'s `fields`). */
  fields: Record<string, string | boolean>;
}

const MAX_TEXT = 1000;

/** The fields of a submission, checked against the form; `details` names each bad field by its key. */
export function readFields(form: readonly FormField[], submitted: Submitted): { ok: true; values: FormValues } | { ok: false; details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const data: Record<string, string | boolean> = {};
  const fields: Record<string, string | boolean> = {};
  let email = "";
  for (const f of form) {
    const raw = submitted[f.key];
    const bad = (message: string) => details.push({ path: f.key, message });
    if (f.type === "checkbox") {
      // a form post sends a ticked box's value ("on") and nothing for an unticked one
      const ticked = raw === true || raw === "on" || raw === "true" || raw === "1" || raw === "yes";
      if (raw !== undefined && raw !== null && raw !== false && raw !== "" && !ticked && raw !== "false") bad("must be a checkbox value");
      else if (f.required && !ticked) bad("must be ticked");
      else {
        data[f.key] = ticked;
        fields[f.key] = ticked;
      }
      continue;
    }
    if (raw !== undefined && raw !== null && typeof raw !== "string") {
      bad("must be text");
      continue;
    }
    const value = (raw ?? "").trim();
    if (value === "") {
      if (f.required) bad("is required");
      continue;
    }
    if (f.type === "email") {
      if (value.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(value)) bad("must be an email address");
      else email = value;
      fields[f.key] = value;
      continue;
    }
    if (value.length > MAX_TEXT) bad(`must be at most ${MAX_TEXT} characters`);
    else if (f.type === "select" && !(f.options ?? []).includes(value)) bad("must be one of the options");
    else {
      data[f.key] = value;
      fields[f.key] = value;
    }
  }
  return details.length > 0 ? { ok: false, details } : { ok: true, values: { email, data, fields } };
}

/**
 * A form post's body as the service receives it: a JSON body arrives parsed; a form-encoded one as
 * text (the gateway does not parse forms), of which the first value of each name counts. Anything
 * else is not a submission (null).
 */
export function submittedBody(body: unknown, contentType: string | undefined): Submitted | null {
  if (body !== null && typeof body === "object" && !Array.isArray(body)) return body as Submitted;
  if (typeof body !== "string") return null;
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return null;
  const out: Submitted = {};
  for (const [k, v] of new URLSearchParams(body)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * The topic choices a submission makes: every topic of the form, except one the contact has said
 * no to. A form may not take back a contact's "no", as a public key may not resubscribe (decisions
 * §12): only the contact's own link or the manage page can.
 */
export function formTopics(topicIds: readonly string[], current: Readonly<Record<string, boolean>> | undefined): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const id of topicIds) if (current?.[id] !== false) out[id] = true;
  return out;
}

/**
 * Why the verify service's verdict refuses an address (null: accepted). Refused: one that does not
 * parse (null verdict), a disposable domain, a likely typo (the person can correct it), and a domain
 * DNS says for certain takes no mail. A lookup that failed or timed out is not held against the
 * person: the address is accepted, and a bounce will tell.
 */
export function addressProblem(verdict: Pick<VerifyAddressResult, "isDisposable" | "isTypo" | "certainlyNoMail" | "suggestedEmail"> | null): string | null {
  if (!verdict) return "is not an email address";
  if (verdict.isDisposable) return "is a disposable address";
  if (verdict.isTypo) return verdict.suggestedEmail ? `looks like a typo of ${verdict.suggestedEmail}` : "looks like a typo";
  if (verdict.certainlyNoMail) return "has no mail server";
  return null;
}

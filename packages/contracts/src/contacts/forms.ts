import { z } from "zod";
import { defineRoute } from "../route.js";
import { Id, IdParams, Timestamp } from "../common.js";

/**
 * Signup forms (decisions.md §17). A form is a project's public way in: its hosted page `/f/{id}`
 * (or an embed of it) writes a contact as a public key would and records `form.submitted`.
 * Owned by the contacts service beside contacts, topics and consent (docs/architecture.md).
 */

export const FORM_FIELD_TYPES = ["email", "text", "checkbox", "select"] as const;
export const FormFieldType = z.enum(FORM_FIELD_TYPES);
export type FormFieldType = z.infer<typeof FormFieldType>;

/**
 * Names the hosted page sends beside the fields: the honeypot and the signed render time. Field
 * keys may not start with `mr_`, so a form can never shadow them.
 */
export const FORM_HIDDEN = { honeypot: "mr_website", renderedAt: "mr_t", signature: "mr_sig" } as const;

/** Submissions one client address may make a minute, across every form (decisions.md §17). */
export const FORM_SUBMISSIONS_PER_MINUTE = 10;
/** A post sooner than this after its page was rendered is a bot's (decisions.md §17). */
export const FORM_MIN_FILL_MS = 2000;
/** A page older than this must be loaded again: its signed render time no longer counts. */
export const FORM_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** Keys that are contact-data keys: the reserved ones (decisions.md §1) are refused. */
const RESERVED_KEYS = new Set(["id", "mailroom_id", "mailroom_email", "unsubscribeUrl", "subscribeUrl", "manageUrl"]);

export const FormFieldKey = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a letter, then letters, digits or '_' (at most 64)")
  .refine((k) => !k.toLowerCase().startsWith("mr_"), "must not start with mr_ (reserved for the form's hidden fields)")
  .refine((k) => !RESERVED_KEYS.has(k), "is a reserved contact key");

export const FormField = z
  .object({
    key: FormFieldKey,
    label: z.string().trim().min(1).max(200),
    type: FormFieldType,
    required: z.boolean().default(false),
    /** A select's choices (1 to 50); no other type has any. */
    options: z.array(z.string().trim().min(1).max(200)).min(1).max(50).optional(),
  })
  .superRefine((f, ctx) => {
    if (f.type === "select" && !f.options) ctx.addIssue({ code: "custom", path: ["options"], message: "a select needs options" });
    if (f.type !== "select" && f.options) ctx.addIssue({ code: "custom", path: ["options"], message: "only a select has options" });
    if (f.type === "email" && f.key !== "email") ctx.addIssue({ code: "custom", path: ["key"], message: "the email field's key is email" });
    if (f.type !== "email" && f.key === "email") ctx.addIssue({ code: "custom", path: ["key"], message: "email is the email field's key" });
  });
export type FormField = z.infer<typeof FormField>;

/** One email field (the contact's address, required), keys unique, at most 20 fields. */
export const FormFields = z
  .array(FormField)
  .min(1)
  .max(20)
  .superRefine((fields, ctx) => {
    const emails = fields.filter((f) => f.type === "email");
    if (emails.length !== 1) ctx.addIssue({ code: "custom", message: "a form has exactly one email field" });
    else if (!emails[0]!.required) ctx.addIssue({ code: "custom", path: [fields.indexOf(emails[0]!), "required"], message: "the email field is required" });
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.key)) ctx.addIssue({ code: "custom", path: [i, "key"], message: "keys must be unique" });
      seen.add(f.key);
    });
  });

/** Where a browser goes after a submission: an absolute http(s) URL. */
export const FormRedirectUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((u) => {
    try {
      return ["http:", "https:"].includes(new URL(u).protocol);
    } catch {
      return false;
    }
  }, "must be an absolute http or https URL");

const FormName = z.string().trim().min(1).max(200);
const SuccessMessage = z.string().trim().min(1).max(1000);
/** Topics a submission opts into (each a topic of the project; checked by the service). */
const TopicIds = z.array(Id).max(20).refine((ids) => new Set(ids).size === ids.length, "topic ids must be unique");

export const Form = z.object({
  id: z.string(),
  name: z.string(),
  fields: z.array(FormField),
  topicIds: z.array(z.string()),
  redirectUrl: z.string().nullable(),
  successMessage: z.string(),
  /** Submissions accepted so far (bots' and refused ones are not counted). */
  submissions: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Form = z.infer<typeof Form>;

export const CreateFormRequest = z.object({
  name: FormName,
  fields: FormFields,
  topicIds: TopicIds.default([]),
  redirectUrl: FormRedirectUrl.nullable().optional(),
  successMessage: SuccessMessage.default("Thanks for signing up!"),
});
export type CreateFormRequest = z.infer<typeof CreateFormRequest>;

export const UpdateFormRequest = z.object({
  name: FormName.optional(),
  fields: FormFields.optional(),
  topicIds: TopicIds.optional(),
  redirectUrl: FormRedirectUrl.nullable().optional(),
  successMessage: SuccessMessage.optional(),
});
export type UpdateFormRequest = z.infer<typeof UpdateFormRequest>;

/** Every form of the project, oldest first (not paged: a project has few). */
export const FormList = z.array(Form);
export type FormList = z.infer<typeof FormList>;

/** At most this many forms per project. */
export const MAX_FORMS = 100;

/** The answer to a JSON submission (a form post gets the success page or the redirect). */
export const FormSubmitResponse = z.object({ success: z.literal(true), message: z.string(), redirectUrl: z.string().nullable() });
export type FormSubmitResponse = z.infer<typeof FormSubmitResponse>;

/**
 * `GET /f/{id}?format=json`: what a site's own script needs to show the form and post it (CORS):
 * the fields, and the hidden values to send back with them (the signed render time and the empty
 * honeypot), exactly as the hosted page carries them.
 */
export const FormPageQuery = z.object({ format: z.enum(["html", "json"]).default("html") });
export const FormRender = z.object({
  id: z.string(),
  name: z.string(),
  fields: z.array(FormField),
  hidden: z.record(z.string(), z.string()),
});
export type FormRender = z.infer<typeof FormRender>;

/** Data of `form.submitted`: the form and what was submitted, by field key (the address included). */
export const FormSubmittedData = z.object({ formId: z.string(), formName: z.string(), fields: z.record(z.string(), z.union([z.string(), z.boolean()])) });
export type FormSubmittedData = z.infer<typeof FormSubmittedData>;

// Project settings: an owner makes and changes forms, as the sending settings and webhooks.
const base = { service: "contacts", auth: "secret", tag: "Forms" } as const;

export const formRoutes = [
  defineRoute({ ...base, method: "GET", path: "/forms", operation: "contacts.forms.list", summary: "List signup forms", response: FormList, status: 200 }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/forms",
    operation: "contacts.forms.create",
    role: "owner",
    summary: "Create a signup form",
    body: CreateFormRequest,
    response: Form,
    status: 201,
  }),
  defineRoute({ ...base, method: "GET", path: "/forms/:id", operation: "contacts.forms.read", summary: "Get a signup form", params: IdParams, response: Form, status: 200 }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/forms/:id",
    operation: "contacts.forms.update",
    role: "owner",
    summary: "Update a signup form",
    params: IdParams,
    body: UpdateFormRequest,
    response: Form,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/forms/:id",
    operation: "contacts.forms.delete",
    role: "owner",
    summary: "Delete a signup form (its hosted page answers 404 from then on)",
    params: IdParams,
    status: 204,
  }),
];

/** The hosted page and its target, served under PUBLIC_URL without a key (decisions.md §17). */
export const formPublicRoutes = [
  defineRoute({
    method: "GET",
    path: "/f/:id",
    service: "contacts",
    operation: "contacts.forms.page",
    auth: "none",
    tag: "Forms",
    summary:
      "The form's hosted page (no script; a signed render time and a honeypot in hidden fields). " +
      "With ?format=json (CORS): FormRender, the fields and the hidden values for a site's own script to post back.",
    params: IdParams,
    query: FormPageQuery,
    status: 200,
    cors: true,
    rawResponse: { contentType: "text/html; charset=utf-8", description: "the form, posting to the same URL (with ?format=json: FormRender as JSON)" },
  }),
  defineRoute({
    method: "POST",
    path: "/f/:id",
    service: "contacts",
    operation: "contacts.forms.submit",
    auth: "none",
    tag: "Forms",
    summary:
      "Submit a form, form-encoded or JSON, with the hosted page's hidden fields (mr_t, mr_sig, mr_website). " +
      "10 a minute per client address. A JSON post answers FormSubmitResponse; a form post the success page or a 303 to redirectUrl.",
    params: IdParams,
    status: 200,
    cors: true,
    clientLimitPerMinute: FORM_SUBMISSIONS_PER_MINUTE,
    acceptsAnyContentType: true,
    response: FormSubmitResponse,
  }),
];

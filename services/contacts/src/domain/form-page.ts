import { FORM_HIDDEN, type FormField } from "@mailroom/contracts";
import { escapeHtml } from "@mailroom/kit";

/**
 * A signup form's hosted page (decisions.md §17): one self-contained HTML page, no script and no
 * outside resource, so it works without JavaScript under a CSP that allows nothing but its inline
 * style. Everything a tenant wrote (labels, options, messages) is escaped.
 */

/**
 * Headers of the form's pages. Nothing loads but the inline style; the form may post only to its
 * own URL's origin and, since browsers hold a form post's redirect to `form-action` too, the origin
 * of the form's `redirectUrl`. The page may be framed by any site (the dashboard's snippet embeds
 * it): a form is made to be embedded, and a framed form can do nothing a visitor could not do on the
 * page itself.
 */
export function formPageHeaders(action: string, redirectUrl: string | null): Record<string, string> {
  const targets = new Set([new URL(action).origin]);
  if (redirectUrl) targets.add(new URL(redirectUrl).origin);
  return {
    "cache-control": "no-store",
    "x-robots-tag": "noindex, nofollow",
    "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; form-action ${[...targets].join(" ")}; base-uri 'none'; frame-ancestors *`,
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
}

const STYLE = `
  :root { color-scheme: light dark; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f5f5f4; color: #1c1917; }
  main { max-width: 28rem; margin: 8vh auto; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgb(0 0 0 / .12); }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  .field { margin: 0 0 1rem; }
  label { display: block; font-weight: 600; margin: 0 0 .25rem; }
  label.check { font-weight: normal; }
  input[type=email], input[type=text], select { box-sizing: border-box; width: 100%; font: inherit; padding: .5rem; border: 1px solid #a8a29e; border-radius: 6px; }
  .hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
  button { font: inherit; padding: .65rem 1.2rem; border-radius: 8px; border: 0; background: #1d4ed8; color: #fff; cursor: pointer; }
  button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  @media (prefers-color-scheme: dark) { body { background: #1c1917; color: #f5f5f4; } main { background: #292524; } }`;

const page = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;

function fieldHtml(f: FormField): string {
  const id = `f-${escapeHtml(f.key)}`;
  const name = escapeHtml(f.key);
  const required = f.required ? " required" : "";
  const label = escapeHtml(f.label);
  if (f.type === "checkbox") {
    return `<div class="field"><label class="check"><input type="checkbox" id="${id}" name="${name}" value="on"${required}> ${label}</label></div>`;
  }
  if (f.type === "select") {
    const options = (f.options ?? []).map((o) => `<option value="${escapeHtml(o)}">${escapeHtml(o)}</option>`).join("");
    return `<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}"${required}><option value=""></option>${options}</select></div>`;
  }
  const type = f.type === "email" ? "email" : "text";
  const auto = f.type === "email" ? ' autocomplete="email"' : "";
  return `<div class="field"><label for="${id}">${label}</label><input type="${type}" id="${id}" name="${name}" maxlength="${f.type === "email" ? 254 : 1000}"${auto}${required}></div>`;
}

export interface FormPage {
  name: string;
  fields: readonly FormField[];
  /** Absolute URL the form posts to (its own `/f/{id}`). */
  action: string;
  renderedAt: string;
  signature: string;
}

/** The form: its fields, then the honeypot (hidden from people and from screen readers) and the signed render time. */
export function renderFormPage(p: FormPage): string {
  return page(
    p.name,
    `<h1>${escapeHtml(p.name)}</h1>
<form method="post" action="${escapeHtml(p.action)}">
${p.fields.map(fieldHtml).join("\n")}
<div class="hp" aria-hidden="true"><label for="mr-website">Website</label><input type="text" id="mr-website" name="${FORM_HIDDEN.honeypot}" tabindex="-1" autocomplete="off"></div>
<input type="hidden" name="${FORM_HIDDEN.renderedAt}" value="${escapeHtml(p.renderedAt)}">
<input type="hidden" name="${FORM_HIDDEN.signature}" value="${escapeHtml(p.signature)}">
<button type="submit">Subscribe</button>
</form>`,
  );
}

/** After a submission (a person's, or a bot's that is not told otherwise). */
export function renderDonePage(name: string, message: string): string {
  return page(name, `<h1>${escapeHtml(name)}</h1>\n<p role="status">${escapeHtml(message)}</p>`);
}

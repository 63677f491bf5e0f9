import type { StoredMessage } from "./types.js";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Every value interpolated into a page goes through this: mail content is attacker-controlled. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0 auto; max-width: 64rem; padding: 1rem 1.5rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #8884; vertical-align: top; }
  td.time { white-space: nowrap; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
  iframe { width: 100%; height: 32rem; border: 1px solid #8886; background: #fff; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #8881; padding: .8rem; }
  a:focus-visible, input:focus-visible, button:focus-visible { outline: 2px solid; outline-offset: 2px; }
  form { display: flex; gap: .5rem; align-items: center; margin-bottom: 1rem; }
  input { font: inherit; padding: .2rem .4rem; min-width: 18rem; }
  button { font: inherit; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Mailroom dev mailbox</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function messagePath(message: StoredMessage, suffix = ""): string {
  return `/messages/${encodeURIComponent(message.id)}${suffix}`;
}

function time(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace("T", " ").slice(0, 19))} UTC</time>`;
}

/** Newest first: the message a developer just triggered is the one they look for. */
export function inboxPage(messages: StoredMessage[], to: string[] = []): string {
  const rows = [...messages]
    .reverse()
    .map(
      (m) => `<tr>
<td><a href="${messagePath(m)}">${escapeHtml(m.subject || "(no subject)")}</a></td>
<td>${escapeHtml((m.to.length ? m.to : m.envelope.rcptTo).join(", "))}</td>
<td class="time">${time(m.receivedAt)}</td>
</tr>`,
    )
    .join("\n");
  const content = messages.length
    ? `<table>
<caption class="visually-hidden">Received messages, newest first</caption>
<thead><tr><th scope="col">Subject</th><th scope="col">To</th><th scope="col">Received</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
    : to.length
      ? `<p>No messages to ${escapeHtml(to.join(", "))}.</p>`
      : `<p>No messages yet. Mail sent to this mailbox's SMTP port appears here.</p>`;
  return layout("Inbox", `<h1>Inbox <small>(${messages.length})</small></h1>\n${searchForm(to)}\n${content}`);
}

/** A recipient filter: the same `?to=` as the JSON list, for the one address a developer is testing. */
function searchForm(to: string[]): string {
  const current = to.join(" ");
  return `<form method="get" action="/" role="search">
<label for="to">Recipient</label>
<input id="to" name="to" type="search" value="${escapeHtml(current)}" placeholder="someone@example.com">
<button type="submit">Filter</button>${current ? ' <a href="/">Show all</a>' : ""}
</form>`;
}

export function messagePage(message: StoredMessage): string {
  const envelope = message.envelope;
  const fields: Array<[string, string]> = [
    ["Subject", message.subject || "(no subject)"],
    ["From", message.from ?? ""],
    ["To", message.to.join(", ")],
    ["Envelope from", envelope.mailFrom || "<>"],
    ["Envelope to", envelope.rcptTo.join(", ")],
    ["Message-ID", message.messageId ?? ""],
  ];
  const list = fields.map(([name, value]) => `<dt>${name}</dt><dd>${escapeHtml(value)}</dd>`).join("\n");
  const html = message.html
    ? `<h2>HTML</h2>
<iframe title="HTML part of the message" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" src="${messagePath(message, "/html")}"></iframe>`
    : "";
  const text = message.text === null ? "" : `<h2>Text</h2>\n<pre>${escapeHtml(message.text)}</pre>`;
  const headers = message.headers.map((h) => `${h.name}: ${h.value}`).join("\n");
  return layout(
    message.subject || "(no subject)",
    `<p><a href="/">← Inbox</a></p>
<h1>${escapeHtml(message.subject || "(no subject)")}</h1>
<dl>
${list}
<dt>Received</dt><dd>${time(message.receivedAt)}</dd>
</dl>
<p><a href="${messagePath(message, "/raw")}">View raw source</a></p>
${html}
${text}
<h2>Headers</h2>
<pre>${escapeHtml(headers)}</pre>`,
  );
}

/**
 * The mail's own HTML, served to the sandboxed frame. Links open in a new tab because the
 * frame cannot navigate to other origins (and a developer wants to follow unsubscribe links).
 */
export function mailHtml(message: StoredMessage): string {
  const html = message.html ?? "";
  return html.replace(/^(\s*<!doctype[^>]*>)?/i, (doctype) => `${doctype}<base target="_blank">`);
}

export function notFoundPage(): string {
  return layout("Not found", `<p><a href="/">← Inbox</a></p>\n<h1>Not found</h1>\n<p>This message is gone or never existed (the mailbox keeps only the most recent messages).</p>`);
}

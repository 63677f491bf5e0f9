import { Alert, Stack, Text } from "@mantine/core";
import { Liquid } from "liquidjs";
import { useEffect, useRef, useState } from "react";
import { previewVariables, type Sample } from "./sample";

// As the sending service renders (services/sending/src/domain/render.ts): outputs HTML-escaped in
// the body, the subject plain and on one line, missing variables empty, unknown filters an error.
// No file access; short bounds so a runaway loop cannot hang the tab.
const bounds = { templates: {}, renderLimit: 1000, parseLimit: 1024 * 1024, memoryLimit: 16 * 1024 * 1024 };
const bodyEngine = new Liquid({ ...bounds, outputEscape: "escape", strictVariables: false, strictFilters: true });
const subjectEngine = new Liquid({ ...bounds, strictVariables: false, strictFilters: true });

type Rendered = { subject: string; html: string } | { error: string };

async function render(subject: string, body: string, sample: Sample): Promise<Rendered> {
  const vars = previewVariables(sample);
  try {
    const [s, html] = await Promise.all([subjectEngine.parseAndRender(subject, vars), bodyEngine.parseAndRender(body, vars)]);
    return { subject: String(s).replace(/\s*[\r\n]\s*/g, " ").trim(), html: String(html) };
  } catch (err) {
    return { error: (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "" };
  }
}

/**
 * The rendered email in the gateway's preview frame (`/app/preview-frame`), which shows the HTML
 * posted to it under its own policy: the email's inline styles apply, its scripts never run.
 * `sandbox="allow-scripts"` (no same origin) keeps the frame's document out of the dashboard's
 * origin, so neither it nor the template can reach the dashboard. The frame stays mounted while a
 * render fails, showing the last good one, so it need not load again.
 */
export default function Preview({ subject, body, sample }: { subject: string; body: string; sample: Sample }) {
  // the last render that worked stays shown while the template does not render
  const [shown, setShown] = useState({ subject: "", html: "" });
  const [error, setError] = useState<string | null>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  // each load of the frame's page (once, unless the browser reloads it) wants the HTML again
  const [frameLoads, setFrameLoads] = useState(0);
  useEffect(() => {
    let current = true;
    void render(subject, body, sample).then((r) => {
      if (!current) return;
      if ("error" in r) return setError(r.error);
      setError(null);
      setShown(r);
    });
    return () => {
      current = false;
    };
  }, [subject, body, sample]);
  useEffect(() => {
    // The frame's origin is opaque, so none can be named; the frame never leaves the gateway's page.
    if (frameLoads > 0) frame.current?.contentWindow?.postMessage({ html: shown.html }, "*");
  }, [frameLoads, shown.html]);

  return (
    <Stack gap="xs" aria-label="Preview" role="region">
      <Text fw={700}>Preview</Text>
      {error !== null ? (
        <Alert color="red" title="The template does not render">
          {error}
        </Alert>
      ) : (
        <Text size="sm">
          Subject: <span data-testid="preview-subject">{shown.subject}</span>
        </Text>
      )}
      <iframe
        ref={frame}
        title="Email preview"
        src={`${import.meta.env.BASE_URL}preview-frame`}
        sandbox="allow-scripts"
        onLoad={() => setFrameLoads((n) => n + 1)}
        hidden={error !== null}
        style={{ width: "100%", height: 360, border: "1px solid var(--mantine-color-default-border)", background: "white" }}
      />
    </Stack>
  );
}

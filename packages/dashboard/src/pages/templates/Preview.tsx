import { Alert, Stack, Text } from "@mantine/core";
import { Liquid } from "liquidjs";
import { useEffect, useState } from "react";
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
 * The rendered email in a sandboxed iframe: `sandbox=""` gives the document an opaque origin and no
 * scripts, so a template's HTML can neither run code nor reach the dashboard.
 */
export default function Preview({ subject, body, sample }: { subject: string; body: string; sample: Sample }) {
  const [rendered, setRendered] = useState<Rendered>({ subject: "", html: "" });
  useEffect(() => {
    let current = true;
    void render(subject, body, sample).then((r) => current && setRendered(r));
    return () => {
      current = false;
    };
  }, [subject, body, sample]);

  return (
    <Stack gap="xs" aria-label="Preview" role="region">
      <Text fw={700}>Preview</Text>
      {"error" in rendered ? (
        <Alert color="red" title="The template does not render">
          {rendered.error}
        </Alert>
      ) : (
        <>
          <Text size="sm">
            Subject: <span data-testid="preview-subject">{rendered.subject}</span>
          </Text>
          <iframe title="Email preview" sandbox="" srcDoc={rendered.html} style={{ width: "100%", height: 360, border: "1px solid var(--mantine-color-default-border)", background: "white" }} />
        </>
      )}
    </Stack>
  );
}

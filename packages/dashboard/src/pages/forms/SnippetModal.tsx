import { Anchor, Button, CopyButton, Modal, Stack, Text, Textarea } from "@mantine/core";
import type { Form } from "@mailroom/contracts";
import { hostedUrl, snippet } from "./form-builder";

/** The HTML to paste into a site, and the hosted page's address. The dashboard is served from PUBLIC_URL, so its origin is the pages'. */
export function SnippetModal({ form, onClose }: { form: Form | null; onClose: () => void }) {
  const origin = window.location.origin;
  const html = form ? snippet(origin, form) : "";
  return (
    <Modal opened={form !== null} onClose={onClose} title="Embed the form" size="lg" centered>
      {form && (
        <Stack>
          <Text size="sm">Paste this where the form should appear. It works without JavaScript; submissions are checked for bots and limited per visitor.</Text>
          <Textarea label="HTML snippet" value={html} readOnly autosize minRows={3} styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton value={html}>{({ copied, copy }) => <Button onClick={copy}>{copied ? "Copied" : "Copy HTML"}</Button>}</CopyButton>
          <Text size="sm">
            Or link to its page:{" "}
            <Anchor href={hostedUrl(origin, form.id)} target="_blank" rel="noreferrer">
              {hostedUrl(origin, form.id)}
            </Anchor>
          </Text>
        </Stack>
      )}
    </Modal>
  );
}

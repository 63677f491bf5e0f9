import type { Template } from "@mailroom/contracts";
import { Alert, Anchor, Button, Group, Select, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { Link } from "react-router";
import { useDomains } from "../../api/domains";
import { useSendTestMutation } from "../../api/templates";
import { showFormError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { oneShotData, type Sample } from "./sample";

/** Sends the saved template, with the sample data, to any address, from one of the project's verified domains. */
export function SendTest({ template, dirty, sample }: { template: Template | null; dirty: boolean; sample: Sample }) {
  const domains = useDomains();
  const send = useSendTestMutation();
  const verified = (domains.data?.data ?? []).filter((d) => d.status === "VERIFIED").map((d) => d.domain);
  const form = useForm({ initialValues: { to: "", sender: "test", domain: "" } });

  if (!template) return <Text size="sm">Save the template to send a test.</Text>;
  const submit = form.onSubmit((v) => {
    const domain = v.domain || verified[0];
    send.mutate(
      { body: { to: v.to.trim(), from: `${v.sender.trim()}@${domain}`, template: template.id, data: oneShotData(sample) } },
      {
        onSuccess: () => notifications.show({ color: "teal.9", message: `Test sent to ${v.to.trim()}` }),
        // the API names `from` and `to`; the form shows them at its own fields
        onError: (err) => showFormError({ getValues: () => ({ to: "", from: "" }), setFieldError: (f, m) => form.setFieldError(f === "from" ? "sender" : f, m) }, err),
      },
    );
  });

  return (
    <QueryStatus query={domains} what="domains">
      {() =>
        verified.length === 0 ? (
          <Alert title="No verified domain" color="gray">
            A test is sent from an address on a verified domain, and this project has none yet.{" "}
            <Anchor component={Link} to="/domains">
              Open Domains
            </Anchor>
          </Alert>
        ) : (
          <form onSubmit={submit} noValidate aria-label="Send test">
            <Stack gap="xs">
              <Text fw={700}>Send a test</Text>
              {dirty && <Text size="sm">The test sends the saved version: save your changes first.</Text>}
              <TextInput label="Send to" type="email" required {...form.getInputProps("to")} />
              <Group align="flex-start" grow>
                <TextInput label="From (before the @)" required {...form.getInputProps("sender")} />
                <Select label="From domain" data={verified} allowDeselect={false} value={form.values.domain || verified[0]!} onChange={(d) => form.setFieldValue("domain", d ?? "")} />
              </Group>
              <Group>
                <Button type="submit" loading={send.isPending}>
                  Send test
                </Button>
              </Group>
            </Stack>
          </form>
        )
      }
    </QueryStatus>
  );
}

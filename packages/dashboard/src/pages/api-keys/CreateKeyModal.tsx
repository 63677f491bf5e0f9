import { type CreatedKey, CreateKeyRequest } from "@mailroom/contracts";
import { Alert, Button, Code, CopyButton, Group, Modal, NumberInput, SegmentedControl, Stack, Text, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useState } from "react";
import { useCreateKeyMutation } from "../../api/keys";
import { useCurrentProject } from "../../api/session";
import { showFormError } from "../../components/errors";

interface Values {
  kind: "secret" | "public";
  name: string;
  rateLimit: number | string;
}

/** The request the form describes: an empty rate limit is the gateway's default. */
const toBody = (v: Values) => ({ kind: v.kind, name: v.name, ...(v.rateLimit === "" ? {} : { rateLimit: Number(v.rateLimit) }) });

/** The form, then the new key in full: the only time it is ever shown. */
export function CreateKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const project = useCurrentProject();
  const create = useCreateKeyMutation();
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const form = useForm<Values>({
    mode: "uncontrolled",
    initialValues: { kind: "secret", name: "", rateLimit: "" },
    validate: (values) => schemaResolver(CreateKeyRequest, { sync: true })(toBody(values) as never),
  });
  const close = () => {
    form.reset();
    setCreated(null);
    onClose();
  };
  const submit = form.onSubmit((values) => {
    create.mutate({ params: { id: project?.id ?? "" }, body: toBody(values) }, { onSuccess: setCreated, onError: (err) => showFormError(form, err) });
  });

  return (
    <Modal opened={opened} onClose={close} title={created ? "Your new key" : "Create an API key"}>
      {created ? (
        <Stack>
          <Alert color="dark" title="Copy it now">
            This key will not be shown again. Store it where your application reads its secrets.
          </Alert>
          <Code block aria-label="New API key">
            {created.key}
          </Code>
          <Group justify="space-between">
            <CopyButton value={created.key}>
              {({ copied, copy }) => (
                <Button variant="default" onClick={copy}>
                  {copied ? "Copied" : "Copy key"}
                </Button>
              )}
            </CopyButton>
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Create an API key">
          <Stack>
            <Stack gap={4}>
              <Text size="sm" fw={500} id="key-kind-label">
                Kind
              </Text>
              <SegmentedControl
                aria-labelledby="key-kind-label"
                data={[
                  { value: "secret", label: "Secret (sk_)" },
                  { value: "public", label: "Public (pk_)" },
                ]}
                key={form.key("kind")}
                {...form.getInputProps("kind")}
              />
            </Stack>
            <TextInput label="Name" placeholder="Production backend" required data-autofocus key={form.key("name")} {...form.getInputProps("name")} />
            <NumberInput
              label="Rate limit (requests per second)"
              description="Empty: the gateway's default"
              min={1}
              allowDecimal={false}
              key={form.key("rateLimit")}
              {...form.getInputProps("rateLimit")}
            />
            <Group justify="flex-end">
              <Button type="submit" loading={create.isPending}>
                Create key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

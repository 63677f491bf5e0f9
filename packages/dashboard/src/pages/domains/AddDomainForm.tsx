import { CreateDomainRequest, type Domain } from "@mailroom/contracts";
import { Button, Group, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useCreateDomainMutation } from "../../api/domains";
import { isApiError } from "../../api/errors";
import { showFormError } from "../../components/errors";

export function AddDomainForm({ onAdded }: { onAdded: (d: Domain) => void }) {
  const create = useCreateDomainMutation();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { domain: "" },
    validate: schemaResolver(CreateDomainRequest, { sync: true }),
  });
  const submit = form.onSubmit((body) =>
    create.mutate(
      { body },
      {
        onSuccess: (d) => {
          form.reset();
          onAdded(d);
        },
        // "already added" belongs at the field, like a malformed name
        onError: (err) => (isApiError(err) && err.error === "CONFLICT" ? form.setFieldError("domain", err.message) : showFormError(form, err)),
      },
    ),
  );

  return (
    <form onSubmit={submit} noValidate aria-label="Add domain">
      <Group align="flex-start">
        <TextInput label="Domain" placeholder="mail.example.com" required key={form.key("domain")} {...form.getInputProps("domain")} />
        <Button type="submit" mt={25} loading={create.isPending}>
          Add domain
        </Button>
      </Group>
    </form>
  );
}

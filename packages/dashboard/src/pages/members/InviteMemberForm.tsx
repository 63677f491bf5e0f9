import { InviteMemberRequest } from "@mailroom/contracts";
import { Button, Group, Select, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useInviteMemberMutation } from "../../api/members";
import { useCurrentProject } from "../../api/session";
import { showFormError } from "../../components/errors";
import { ROLE_OPTIONS } from "./roles";

/** An invitation by email: the link arrives from Mailroom itself and works for the gateway's INVITATION_TTL_MS (7 days by default). */
export function InviteMemberForm() {
  const project = useCurrentProject();
  const invite = useInviteMemberMutation();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { email: "", role: "editor" as InviteMemberRequest["role"] },
    validate: schemaResolver(InviteMemberRequest, { sync: true }),
  });
  const submit = form.onSubmit((body) =>
    invite.mutate(
      { params: { id: project?.id ?? "" }, body },
      {
        onSuccess: (m) => {
          form.reset();
          notifications.show({ color: "green", message: `Invitation sent to ${m.email}` });
        },
        onError: (err) => showFormError(form, err),
      },
    ),
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Invite a member">
      <Group align="flex-start">
        <TextInput label="Email" type="email" placeholder="ada@example.com" required key={form.key("email")} {...form.getInputProps("email")} />
        <Select label="Role" data={ROLE_OPTIONS} allowDeselect={false} key={form.key("role")} {...form.getInputProps("role")} w={140} />
        <Button type="submit" mt={25} loading={invite.isPending}>
          Invite
        </Button>
      </Group>
    </form>
  );
}

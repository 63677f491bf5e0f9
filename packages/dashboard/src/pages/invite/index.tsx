import { AcceptInvitationRequest } from "@mailroom/contracts";
import { Alert, Button, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useNavigate, useSearchParams } from "react-router";
import { useAcceptInvitation } from "../../api/session";
import { AuthCard } from "../../components/AuthCard";
import { showFormError } from "../../components/errors";

/** The form checks name and password; the token comes from the link and the server checks it. */
const checkInvite = schemaResolver(AcceptInvitationRequest.omit({ token: true }), { sync: true });
const toRequest = (v: { name: string; password: string }) => ({ name: v.name, password: v.password === "" ? undefined : v.password });

export default function InvitePage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const navigate = useNavigate();
  const accept = useAcceptInvitation();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { name: "", password: "" },
    // An empty password means "I already have an account": the field is optional in the contract.
    validate: (v) => checkInvite(toRequest(v)),
    transformValues: toRequest,
  });

  if (!token) {
    return (
      <AuthCard title="Accept invitation">
        <Alert color="red" role="alert">
          This invitation link is incomplete. Open the link from the invitation email again.
        </Alert>
      </AuthCard>
    );
  }

  const submit = form.onSubmit((values) =>
    accept.mutate({ token, ...values }, { onSuccess: () => navigate("/", { replace: true }), onError: (err) => showFormError(form, err) }),
  );

  return (
    <AuthCard title="Accept invitation">
      <Text size="sm" c="dimmed">
        Choose your name and a password to join the project. If you already have an account, leave the password empty.
      </Text>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Name" autoComplete="name" required key={form.key("name")} {...form.getInputProps("name")} />
          <PasswordInput label="Password" description="At least 10 characters" autoComplete="new-password" key={form.key("password")} {...form.getInputProps("password")} />
          <Button type="submit" loading={accept.isPending}>
            Join the project
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}

import { LoginRequest } from "@mailroom/contracts";
import { Alert, Button, Divider, PasswordInput, Stack, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { ApiError } from "../../api/errors";
import { OIDC_START, useSsoAvailable } from "../../api/oidc";
import { useLogin } from "../../api/session";
import { AuthCard } from "../../components/AuthCard";
import { showFormError } from "../../components/errors";
import { adviceFor } from "../../lib/errors";
import { safeNext } from "../../lib/redirect";

export default function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get("next"));
  const navigate = useNavigate();
  const login = useLogin();
  const sso = useSsoAvailable();
  const [problem, setProblem] = useState<string | null>(null);
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { email: "", password: "" },
    validate: schemaResolver(LoginRequest, { sync: true }),
  });

  const submit = form.onSubmit((values) => {
    setProblem(null);
    login.mutate(values, {
      onSuccess: () => navigate(next, { replace: true }),
      onError: (err) => {
        // A wrong address or password (one answer for both) and too many attempts belong at the form.
        if (err instanceof ApiError && (err.status === 401 || err.status === 429)) setProblem(adviceFor(err).message);
        else showFormError(form, err);
      },
    });
  });

  return (
    <AuthCard title="Sign in to Mailroom">
      <form onSubmit={submit} noValidate>
        <Stack>
          {problem && (
            <Alert color="red" role="alert">
              {problem}
            </Alert>
          )}
          <TextInput label="Email" type="email" autoComplete="username" required key={form.key("email")} {...form.getInputProps("email")} />
          <PasswordInput label="Password" autoComplete="current-password" required key={form.key("password")} {...form.getInputProps("password")} />
          <Button type="submit" loading={login.isPending}>
            Sign in
          </Button>
        </Stack>
      </form>
      {sso && (
        <>
          <Divider label="or" />
          <Button component="a" href={`${OIDC_START}?next=${encodeURIComponent(`/app${next}`)}`} variant="default">
            Sign in with SSO
          </Button>
        </>
      )}
    </AuthCard>
  );
}

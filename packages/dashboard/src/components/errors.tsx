import { Anchor, Stack, Text } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { Link } from "react-router";
import { ApiError } from "../api/errors";
import { adviceFor, fieldPaths, splitDetails } from "../lib/errors";

/** A failed call as a notification: the title, the server's message and the next step. */
export function notifyError(err: unknown): void {
  const advice = adviceFor(err);
  notifications.show({
    color: "red",
    title: advice.title,
    message: (
      <Stack gap={4}>
        <Text size="sm">{advice.message}</Text>
        {advice.link && (
          <Anchor component={Link} to={advice.link.to} size="sm">
            {advice.link.label}
          </Anchor>
        )}
      </Stack>
    ),
  });
}

/**
 * A failed form submission: each `details[].path` message goes on its field; whatever no field
 * shows (another path, or an error without details) becomes a notification.
 */
export function showFormError(form: Pick<UseFormReturnType<any>, "getValues" | "setFieldError">, err: unknown): void {
  if (!(err instanceof ApiError) || err.details.length === 0) {
    notifyError(err);
    return;
  }
  const { fieldErrors, rest } = splitDetails(err.details, fieldPaths(form.getValues()));
  for (const [field, message] of Object.entries(fieldErrors)) form.setFieldError(field, message);
  if (rest.length === 0) return;
  const message = rest.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ");
  notifyError(new ApiError(err.status, err.error, `${err.message} (${message})`, rest, err.reason));
}

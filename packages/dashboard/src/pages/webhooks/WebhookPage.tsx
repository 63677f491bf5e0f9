import type { WebhookEndpoint, WebhookEndpointWithSecret } from "@mailroom/contracts";
import { Alert, Button, Code, Group, Modal, SimpleGrid, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { useNavigate, useParams } from "react-router";
import { useDeleteWebhookMutation, useRotateSecretMutation, useSendTestMutation, useUpdateWebhookMutation, useWebhook } from "../../api/webhooks";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";
import { PageHeader } from "../../components/PageHeader";
import { LoadError, Loading } from "../../components/QueryState";
import { formatTime } from "../../lib/format";
import { Deliveries } from "./Deliveries";
import { EndpointStatus } from "./EndpointStatus";
import { SecretReveal } from "./SecretReveal";
import { WebhookForm } from "./WebhookForm";

const BACK = { to: "/webhooks", label: "All webhooks" };

/** One endpoint: what it receives, its actions (test, edit, rotate, disable, delete) and its deliveries log. */
export default function WebhookPage() {
  const id = useParams().id ?? "";
  const owner = useCan("owner");
  const hook = useWebhook(id, owner);

  if (!owner) {
    return (
      <Stack>
        <PageHeader title="Webhook endpoint" back={BACK} />
        <Alert title="Owners only">Only a project's owners can see and manage its webhook endpoints.</Alert>
      </Stack>
    );
  }
  if (hook.isPending) return <Loading what="the endpoint" />;
  if (hook.isError) return <LoadError error={hook.error} onRetry={() => hook.refetch()} />;
  return <Endpoint hook={hook.data} />;
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Stack>
  );
}

function Endpoint({ hook }: { hook: WebhookEndpoint }) {
  const navigate = useNavigate();
  const update = useUpdateWebhookMutation();
  const remove = useDeleteWebhookMutation();
  const rotate = useRotateSecretMutation();
  const test = useSendTestMutation();
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<"rotate" | "delete" | null>(null);
  const [rotated, setRotated] = useState<WebhookEndpointWithSecret | null>(null);
  const params = { params: { id: hook.id } };

  const sendTest = () =>
    test.mutate(params, {
      onSuccess: () =>
        notifications.show({
          message: hook.enabled ? "Test event queued: it shows in the deliveries below." : "Test event queued: it is sent once the endpoint is enabled.",
        }),
      onError: notifyError,
    });
  const setEnabled = (enabled: boolean) => update.mutate({ ...params, body: { enabled } }, { onError: notifyError });
  // the confirmation closes either way: on success the secret's dialog takes its place
  const doRotate = () =>
    rotate.mutate(params, {
      onSuccess: (r) => {
        setConfirm(null);
        setRotated(r);
      },
      onError: (err) => {
        setConfirm(null);
        notifyError(err);
      },
    });
  const doDelete = () =>
    remove.mutate(params, {
      onSuccess: () => {
        notifications.show({ message: `Endpoint ${hook.url} deleted` });
        navigate("/webhooks", { replace: true });
      },
      onError: (err) => {
        setConfirm(null);
        notifyError(err);
      },
    });

  return (
    <Stack gap="lg">
      <PageHeader
        title={<span style={{ wordBreak: "break-all" }}>{hook.url}</span>}
        back={BACK}
        badge={<EndpointStatus hook={hook} />}
        actions={
          <>
            <Button loading={test.isPending} onClick={sendTest}>
              Send test event
            </Button>
            <Button variant="default" onClick={() => setEditing(true)}>
              Edit
            </Button>
            <Button variant="default" onClick={() => setConfirm("rotate")}>
              Rotate secret
            </Button>
            <Button variant="default" loading={update.isPending} onClick={() => setEnabled(!hook.enabled)}>
              {hook.enabled ? "Disable" : "Enable"}
            </Button>
            <Button color="red.9" variant="outline" onClick={() => setConfirm("delete")}>
              Delete
            </Button>
          </>
        }
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Field label="Events">
          <Group gap={4}>
            {hook.events.map((e) => (
              <Code key={e}>{e}</Code>
            ))}
          </Group>
        </Field>
        <Field label="Description">{hook.description ?? "—"}</Field>
        <Field label="Created">{formatTime(hook.createdAt)}</Field>
      </SimpleGrid>
      {hook.previousSecretExpiresAt && <Text size="sm">The previous secret also signs until {formatTime(hook.previousSecretExpiresAt)}.</Text>}
      <Deliveries hookId={hook.id} />
      {editing && <WebhookForm hook={hook} onClose={() => setEditing(false)} />}
      <Modal opened={rotated !== null} onClose={() => setRotated(null)} title="Your endpoint's new signing secret" size="lg">
        {rotated && <SecretReveal secret={rotated.secret} previousUntil={rotated.previousSecretExpiresAt} onDone={() => setRotated(null)} />}
      </Modal>
      <ConfirmModal
        opened={confirm === "rotate"}
        title="Rotate the signing secret?"
        message="A new secret signs every request from now on. The old one keeps signing beside it for 24 hours, so your receiver has a day to switch."
        confirmLabel="Rotate secret"
        loading={rotate.isPending}
        onConfirm={doRotate}
        onClose={() => setConfirm(null)}
      />
      <ConfirmModal
        opened={confirm === "delete"}
        title="Delete this endpoint?"
        message={`${hook.url} receives nothing from now on, and its deliveries log goes with it. This cannot be undone.`}
        confirmLabel="Delete endpoint"
        loading={remove.isPending}
        onConfirm={doDelete}
        onClose={() => setConfirm(null)}
      />
    </Stack>
  );
}

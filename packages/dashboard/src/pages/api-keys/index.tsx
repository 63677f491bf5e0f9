import type { ApiKey } from "@mailroom/contracts";
import { Alert, Badge, Button, Code, Stack, } from "@mantine/core";
import { useState } from "react";
import { useKeys, useRevokeKeyMutation } from "../../api/keys";
import { useCurrentProject } from "../../api/session";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";
import { type Column, QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { formatTime } from "../../lib/format";
import { CreateKeyModal } from "./CreateKeyModal";

/** A key as a row: never its secret, which is shown once, when it is created. */
const KEY_COLUMNS: Column<ApiKey>[] = [
  { header: "Name", cell: (k) => k.name },
  { header: "Kind", cell: (k) => k.kind },
  { header: "Key", cell: (k) => <Code>{k.prefix}…</Code> },
  { header: "Rate limit", cell: (k) => (k.rateLimit ? `${k.rateLimit}/s` : "default") },
  { header: "Created", cell: (k) => formatTime(k.createdAt) },
  {
    header: "Status",
    cell: (k) => (k.revokedAt ? <Badge color="gray.7">Revoked {formatTime(k.revokedAt)}</Badge> : <Badge color="teal.9">Active</Badge>),
  },
];

export default function ApiKeysPage() {
  const owner = useCan("owner");
  const keys = useKeys(owner);
  const project = useCurrentProject();
  const revoke = useRevokeKeyMutation();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const confirmRevoke = () =>
    revoking &&
    revoke.mutate(
      { params: { id: project?.id ?? "", keyId: revoking.id } },
      { onSuccess: () => setRevoking(null), onError: (err) => (setRevoking(null), notifyError(err)) },
    );

  return (
    <Stack>
      <PageHeader
        title="API keys"
        description="Secret keys (sk_) call every route; public keys (pk_) may only track events, from a browser. A key is shown once, when it is created."
        actions={
          <NewButton minRole="owner" onClick={() => setCreating(true)}>
            Create key
          </NewButton>
        }
      />
      {!owner && <Alert title="Owners only">Only a project's owners can see and manage its API keys.</Alert>}
      {owner && (
        <QueryTable
          label="API keys"
          query={keys}
          empty="No keys yet."
          minWidth={640}
          columns={[
            ...KEY_COLUMNS,
            {
              header: "Actions",
              hideHeader: true,
              cell: (k) =>
                !k.revokedAt && (
                  <Button size="xs" variant="default" color="red" aria-label={`Revoke ${k.name}`} onClick={() => setRevoking(k)}>
                    Revoke
                  </Button>
                ),
            },
          ]}
        />
      )}
      <CreateKeyModal opened={creating} onClose={() => setCreating(false)} />
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke this key?"
        message={`Requests made with “${revoking?.name}” are refused from now on, on every gateway within a second. This cannot be undone.`}
        confirmLabel="Revoke key"
        loading={revoke.isPending}
        onConfirm={confirmRevoke}
        onClose={() => setRevoking(null)}
      />
    </Stack>
  );
}

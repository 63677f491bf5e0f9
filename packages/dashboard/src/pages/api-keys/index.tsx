import type { ApiKey } from "@mailroom/contracts";
import { Alert, Badge, Button, Code, Group, Stack, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { useState } from "react";
import { useKeys, useRevokeKeyMutation } from "../../api/keys";
import { useCurrentProject } from "../../api/session";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { formatTime } from "../../lib/format";
import { CreateKeyModal } from "./CreateKeyModal";

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
      <Group justify="space-between">
        <Title order={2}>API keys</Title>
        {owner && <Button onClick={() => setCreating(true)}>Create key</Button>}
      </Group>
      <Text c="dimmed" size="sm">
        Secret keys (sk_) call every route; public keys (pk_) may only track events, from a browser. A key is shown once, when it is
        created.
      </Text>
      {!owner && <Alert title="Owners only">Only a project's owners can see and manage its API keys.</Alert>}
      {owner && (
        <QueryStatus query={keys} what="keys">
          {() =>
            keys.data!.data.length === 0 ? (
              <Text>No keys yet.</Text>
            ) : (
        <Table.ScrollContainer minWidth={640}>
<Table striped highlightOnHover aria-label="API keys">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Key</Table.Th>
              <Table.Th>Rate limit</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.data!.data.map((k) => (
              <Table.Tr key={k.id}>
                <Table.Td>{k.name}</Table.Td>
                <Table.Td>{k.kind}</Table.Td>
                <Table.Td>
                  <Code>{k.prefix}…</Code>
                </Table.Td>
                <Table.Td>{k.rateLimit ? `${k.rateLimit}/s` : "default"}</Table.Td>
                <Table.Td>{formatTime(k.createdAt)}</Table.Td>
                <Table.Td>
                  {k.revokedAt ? (
                    <Badge color="gray.7">
                      Revoked {formatTime(k.revokedAt)}
                    </Badge>
                  ) : (
                    <Badge color="teal.9">
                      Active
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>
                  {!k.revokedAt && (
                    <Button size="xs" variant="default" color="red" aria-label={`Revoke ${k.name}`} onClick={() => setRevoking(k)}>
                      Revoke
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
</Table.ScrollContainer>
            )
          }
        </QueryStatus>
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

import type { ApiKey } from "@mailroom/contracts";
import { Alert, Badge, Button, Code, Group, Loader, Stack, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { useState } from "react";
import { useKeys } from "../../api/keys";
import { useCan } from "../../components/Can";
import { notifyError } from "../../components/errors";
import { CreateKeyModal } from "./CreateKeyModal";
import { RevokeKeyModal } from "./RevokeKeyModal";

const when = (iso: string) => new Date(iso).toLocaleString();

export default function ApiKeysPage() {
  const owner = useCan("owner");
  const keys = useKeys(owner);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

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
      {owner && keys.isPending && <Loader aria-label="Loading keys" />}
      {keys.isError && <Alert color="red" title="Could not load the keys">{keys.error.message}</Alert>}
      {keys.data && keys.data.data.length === 0 && <Text>No keys yet.</Text>}
      {keys.data && keys.data.data.length > 0 && (
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
            {keys.data.data.map((k) => (
              <Table.Tr key={k.id}>
                <Table.Td>{k.name}</Table.Td>
                <Table.Td>{k.kind}</Table.Td>
                <Table.Td>
                  <Code>{k.prefix}…</Code>
                </Table.Td>
                <Table.Td>{k.rateLimit ? `${k.rateLimit}/s` : "default"}</Table.Td>
                <Table.Td>{when(k.createdAt)}</Table.Td>
                <Table.Td>
                  {k.revokedAt ? (
                    <Badge color="gray.7">
                      Revoked {when(k.revokedAt)}
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
      )}
      <CreateKeyModal opened={creating} onClose={() => setCreating(false)} />
      <RevokeKeyModal apiKey={revoking} onClose={() => setRevoking(null)} onError={notifyError} />
    </Stack>
  );
}

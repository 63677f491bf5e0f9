import type { ApiKey } from "@mailroom/contracts";
import { Button, Group, Modal, Text } from "@mantine/core";
import { useRevokeKeyMutation } from "../../api/keys";
import { useCurrentProject } from "../../api/session";

export function RevokeKeyModal({ apiKey, onClose, onError }: { apiKey: ApiKey | null; onClose: () => void; onError: (err: unknown) => void }) {
  const project = useCurrentProject();
  const revoke = useRevokeKeyMutation();
  const confirm = () =>
    apiKey &&
    revoke.mutate({ params: { id: project?.id ?? "", keyId: apiKey.id } }, { onSuccess: onClose, onError: (err) => (onClose(), onError(err)) });
  return (
    <Modal opened={apiKey !== null} onClose={onClose} title="Revoke this key?" closeButtonProps={{ "aria-label": "Close" }}>
      <Text mb="md">
        Requests made with “{apiKey?.name}” are refused from now on, on every gateway within a second. This cannot be undone.
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button color="red" loading={revoke.isPending} onClick={confirm}>
          Revoke key
        </Button>
      </Group>
    </Modal>
  );
}

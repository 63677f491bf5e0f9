import { Button, Group, Modal, Stack, Text } from "@mantine/core";

/** "Are you sure?" for an action that cannot be undone; the safe choice has the focus first. */
export function ConfirmModal(props: {
  opened: boolean;
  title: string;
  message: string;
  confirmLabel: string;
  loading?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} centered>
      <Stack>
        <Text size="sm">{props.message}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red.9" loading={props.loading} onClick={props.onConfirm}>
            {props.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

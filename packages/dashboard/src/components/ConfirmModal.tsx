import type { ReactNode } from "react";
import { Button, Group, Modal, Stack, Text } from "@mantine/core";

/** "Are you sure?" for an action that cannot be undone; the safe choice has the focus first. */
export function ConfirmModal(props: {
  opened: boolean;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  loading?: boolean;
  /** The confirm button's colour: red for what destroys (the default), the primary colour for what sends. */
  color?: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} centered>
      <Stack>
        {typeof props.message === "string" ? <Text size="sm">{props.message}</Text> : props.message}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose} data-autofocus>
            Cancel
          </Button>
          <Button color={props.color ?? "red.9"} loading={props.loading} onClick={props.onConfirm}>
            {props.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

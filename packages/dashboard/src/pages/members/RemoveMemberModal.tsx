import type { Member } from "@mailroom/contracts";
import { Button, Group, Modal, Text } from "@mantine/core";
import { useRemoveMemberMutation } from "../../api/members";
import { useCurrentProject } from "../../api/session";
import { notifyError } from "../../components/errors";

export function RemoveMemberModal({ member, onClose }: { member: Member | null; onClose: () => void }) {
  const project = useCurrentProject();
  const remove = useRemoveMemberMutation();
  const confirm = () =>
    member && remove.mutate({ params: { id: project?.id ?? "", userId: member.userId } }, { onSuccess: onClose, onError: (err) => (onClose(), notifyError(err)) });
  const what = member?.pending ? "Withdraw this invitation?" : "Remove this member?";
  return (
    <Modal opened={member !== null} onClose={onClose} title={what} closeButtonProps={{ "aria-label": "Close" }}>
      <Text mb="md">
        {member?.pending
          ? `The invitation link sent to ${member?.email} stops working.`
          : `${member?.email} loses access to this project at once. Their account stays, with its other projects.`}
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button color="red" loading={remove.isPending} onClick={confirm}>
          {member?.pending ? "Withdraw" : "Remove"}
        </Button>
      </Group>
    </Modal>
  );
}

import type { Campaign } from "@mailroom/contracts";
import { Button } from "@mantine/core";
import { useState } from "react";
import { useNavigate } from "react-router";
import { useDeleteCampaignMutation } from "../../api/campaigns";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";

export function DeleteDraft({ campaign }: { campaign: Campaign }) {
  const [open, setOpen] = useState(false);
  const remove = useDeleteCampaignMutation();
  const navigate = useNavigate();
  return (
    <>
      <Button variant="default" onClick={() => setOpen(true)}>
        Delete draft
      </Button>
      <ConfirmModal
        opened={open}
        title={`Delete ${campaign.name}?`}
        message="The draft is deleted for good."
        confirmLabel="Delete"
        loading={remove.isPending}
        onClose={() => setOpen(false)}
        onConfirm={() =>
          remove.mutate({ params: { id: campaign.id } }, { onSuccess: () => navigate("..", { relative: "path" }), onError: (err) => (setOpen(false), notifyError(err)) })
        }
      />
    </>
  );
}

import type { WebhookEndpoint } from "@mailroom/contracts";
import { Alert, Code, Group, Stack } from "@mantine/core";
import { useState } from "react";
import { useNavigate } from "react-router";
import { useWebhooks } from "../../api/webhooks";
import { useCan } from "../../components/Can";
import { linkColumn, QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { EndpointStatus } from "./EndpointStatus";
import { WebhookForm } from "./WebhookForm";

/** Long URLs and patterns wrap inside their cell instead of widening the table. */
const WRAP = { wordBreak: "break-all" } as const;

/** The project's webhook endpoints; adding one shows its secret once, then opens its page. */
export function WebhookList() {
  const owner = useCan("owner");
  const [page, setPage] = useState(1);
  const hooks = useWebhooks(page, owner);
  const [adding, setAdding] = useState(false);
  const navigate = useNavigate();

  return (
    <Stack>
      <PageHeader
        title="Webhooks"
        description="Mailroom POSTs the events you choose to your endpoints, signed as Standard Webhooks, and retries a failed delivery for over a day."
        actions={
          <NewButton minRole="owner" onClick={() => setAdding(true)}>
            Add endpoint
          </NewButton>
        }
      />
      {!owner && <Alert title="Owners only">Only a project's owners can see and manage its webhook endpoints: they receive the project's mail events and hold its signing secrets.</Alert>}
      {owner && (
        <QueryTable
          label="Webhook endpoints"
          query={hooks}
          rows={(d) => d.webhooks}
          onPage={setPage}
          empty="No endpoints yet. Add one to receive email and contact events as they happen."
          minWidth={640}
          columns={[
            { ...linkColumn<WebhookEndpoint>("URL", (h) => h.id, (h) => h.url), style: WRAP },
            {
              header: "Events",
              cell: (h) => (
                <Group gap={4}>
                  {h.events.map((e) => (
                    <Code key={e} style={WRAP}>
                      {e}
                    </Code>
                  ))}
                </Group>
              ),
            },
            { header: "Status", cell: (h) => <EndpointStatus hook={h} /> },
            { header: "Description", cell: (h) => h.description ?? "", style: WRAP },
          ]}
        />
      )}
      {adding && <WebhookForm hook={null} onClose={() => setAdding(false)} onCreated={(h) => navigate(h.id)} />}
    </Stack>
  );
}

import { Button, Group, NumberInput, Switch } from "@mantine/core";
import type { FrequencyCap } from "@mailroom/contracts";
import { useState } from "react";

/** What a project starts with when it turns the cap on: a common weekly limit. */
const SUGGESTED: FrequencyCap = { max: 3, days: 7 };

/**
 * The frequency cap on marketing mail: on or off, and its limit, saved together (a half-typed number
 * is never saved on its own).
 */
export function FrequencyCapFields({ cap, disabled, onSave }: { cap: FrequencyCap | null; disabled: boolean; onSave: (cap: FrequencyCap | null) => void }) {
  const [draft, setDraft] = useState<FrequencyCap>(cap ?? SUGGESTED);
  const changed = cap !== null && (draft.max !== cap.max || draft.days !== cap.days);
  const valid = Number.isInteger(draft.max) && draft.max >= 1 && draft.max <= 1000 && Number.isInteger(draft.days) && draft.days >= 1 && draft.days <= 365;
  return (
    <>
      <Switch
        label="Frequency cap"
        description="At most this many marketing emails (campaigns, marketing workflow steps) per contact in the period; campaigns skip the rest and count them. Transactional mail is never capped."
        checked={cap !== null}
        disabled={disabled}
        onChange={(e) => onSave(e.currentTarget.checked ? draft : null)}
      />
      {cap !== null && (
        <Group align="end">
          <NumberInput label="Emails at most" min={1} max={1000} allowDecimal={false} value={draft.max} disabled={disabled} onChange={(v) => setDraft({ ...draft, max: Number(v) })} w={140} />
          <NumberInput label="In days" min={1} max={365} allowDecimal={false} value={draft.days} disabled={disabled} onChange={(v) => setDraft({ ...draft, days: Number(v) })} w={140} />
          <Button variant="light" disabled={disabled || !changed || !valid} onClick={() => onSave(draft)}>
            Save cap
          </Button>
        </Group>
      )}
    </>
  );
}

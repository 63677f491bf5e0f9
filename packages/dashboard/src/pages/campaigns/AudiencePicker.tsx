import { AUDIENCE_TYPES, type AudienceType, FilterExpression } from "@mailroom/contracts";
import { Anchor, Group, JsonInput, Radio, Select, Stack, Text } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { useFilterCount, useSegmentOptions } from "../../api/audience";
import { type Audience, recipientFilter } from "./audience";

const LABELS: Record<AudienceType, string> = { ALL: "All subscribed contacts", SEGMENT: "A segment", FILTERED: "A filter" };

/**
 * Who the campaign goes to, with the live count of its recipients (subscribed contacts only, §10).
 * The filter option edits the expression of decisions.md §8 as JSON until the visual filter builder
 * (src/components/filter-builder/, branch `segments`) is merged: it plugs in as `FilterInput`,
 * the same value and onChange.
 */
export function AudiencePicker({ value, onChange, errors, readOnly }: {
  value: Audience;
  onChange: (next: Partial<Audience>) => void;
  errors: { segmentId?: string; audienceFilter?: string };
  readOnly: boolean;
}) {
  const segments = useSegmentOptions();
  const options = (segments.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${s.memberCount.toLocaleString()})` }));
  return (
    <Stack gap="xs">
      <Radio.Group label="Audience" value={value.audienceType} onChange={(v) => !readOnly && onChange(switchTo(v as AudienceType, value))}>
        <Group mt={4}>
          {AUDIENCE_TYPES.map((t) => (
            <Radio key={t} value={t} label={LABELS[t]} disabled={readOnly && value.audienceType !== t} />
          ))}
        </Group>
      </Radio.Group>
      {value.audienceType === "SEGMENT" && (
        <Select
          label="Segment"
          placeholder={segments.isPending ? "Loading segments…" : options.length ? "Pick a segment" : "No segment yet"}
          data={options}
          value={value.segmentId}
          onChange={(id) => onChange({ segmentId: id })}
          searchable
          readOnly={readOnly}
          error={errors.segmentId}
          description={
            options.length === 0 && !segments.isPending ? (
              <>
                Build one on the{" "}
                <Anchor component={Link} to="/segments" size="xs">
                  Segments
                </Anchor>{" "}
                page.
              </>
            ) : undefined
          }
        />
      )}
      {value.audienceType === "FILTERED" && <FilterInput value={value.audienceFilter} onChange={(f) => onChange({ audienceFilter: f })} error={errors.audienceFilter} readOnly={readOnly} />}
      <RecipientCount audience={value} />
    </Stack>
  );
}

const EXAMPLE: FilterExpression = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] };

/** A first filter to edit when the filter option is chosen, rather than an empty box. */
const switchTo = (audienceType: AudienceType, current: Audience): Partial<Audience> =>
  audienceType === "FILTERED" && !current.audienceFilter ? { audienceType, audienceFilter: EXAMPLE } : { audienceType };

/** The filter as JSON, checked against the contract's schema as it is typed. */
function FilterInput({ value, onChange, error, readOnly }: { value: FilterExpression | null; onChange: (f: FilterExpression | null) => void; error?: string; readOnly: boolean }) {
  const [text, setText] = useState(() => JSON.stringify(value ?? EXAMPLE, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const change = (t: string) => {
    setText(t);
    let json: unknown;
    try {
      json = JSON.parse(t);
    } catch {
      setProblem("Not valid JSON");
      return;
    }
    const parsed = FilterExpression.safeParse(json);
    setProblem(parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".") || "filter"}: ${i.message}`)[0]!);
    onChange(parsed.success ? parsed.data : null);
  };
  return (
    <JsonInput
      label="Filter"
      description="Conditions on contact fields, data, events and email activity (decisions.md §8)"
      autosize
      minRows={4}
      value={text}
      onChange={change}
      readOnly={readOnly}
      error={problem ?? error}
    />
  );
}

/** "1,234 recipients": the subscribed contacts the audience holds right now. */
function RecipientCount({ audience }: { audience: Audience }) {
  // Debounced as text: a filter object made each render would restart the wait every time.
  const [debounced] = useDebouncedValue(JSON.stringify(recipientFilter(audience)), 300);
  const filter = useMemo(() => JSON.parse(debounced) as FilterExpression | null, [debounced]);
  const count = useFilterCount(filter);
  let text: string;
  if (filter === null) text = audience.audienceType === "SEGMENT" ? "Pick a segment to see its recipients." : "Write a filter to see its recipients.";
  else if (count.isError) text = "The recipients could not be counted.";
  else if (count.data === undefined) text = "Counting recipients…";
  else text = `${count.data.count.toLocaleString()} recipient${count.data.count === 1 ? "" : "s"} (subscribed contacts) right now`;
  return (
    <Text size="sm" role="status" aria-live="polite" data-testid="recipient-count">
      {text}
    </Text>
  );
}

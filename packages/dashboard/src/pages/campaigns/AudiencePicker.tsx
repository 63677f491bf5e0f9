import { AUDIENCE_TYPES, type AudienceType, type FilterExpression } from "@mailroom/contracts";
import { Anchor, Group, Radio, Select, Stack, Text } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { useFilterCount, useSegments } from "../../api/segments";
import { useTopics } from "../../api/topics";
import { FilterBuilder } from "../../components/filter-builder";
import { type Audience, recipientFilter } from "./audience";

const LABELS: Record<AudienceType, string> = { ALL: "All subscribed contacts", SEGMENT: "A segment", FILTERED: "A filter" };

/** Who the campaign goes to, with the live count of its recipients (subscribed contacts only, §10). */
export function AudiencePicker({ value, onChange, errors, readOnly }: {
  value: Audience;
  onChange: (next: Partial<Audience>) => void;
  errors: { segmentId?: string; audienceFilter?: string; topicId?: string };
  readOnly: boolean;
}) {
  const segments = useSegments();
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
      <TopicPicker value={value.topicId} onChange={(topicId) => onChange({ topicId })} error={errors.topicId} readOnly={readOnly} />
      <RecipientCount audience={value} />
    </Stack>
  );
}

/** Select's value for "not a topic campaign" (a Select option needs a string). */
const NO_TOPIC = "none";

/** A topic campaign (decisions.md §14) or not: its recipients must be opted into the topic. */
function TopicPicker({ value, onChange, error, readOnly }: { value: string | null; onChange: (topicId: string | null) => void; error?: string; readOnly: boolean }) {
  const topics = useTopics();
  const list = topics.data ?? [];
  const options = [{ value: NO_TOPIC, label: "No topic" }, ...list.map((t) => ({ value: t.id, label: t.name }))];
  // A topic deleted since the campaign was saved still shows, so saving says what is wrong.
  if (value && topics.data && !list.some((t) => t.id === value)) options.push({ value, label: "A deleted topic" });
  return (
    <Select
      label="Topic"
      description={
        list.length === 0 && !topics.isPending ? (
          <>
            None yet: create topics on the{" "}
            {/* Underlined: a link inside text must not be told apart by its colour alone (axe). */}
            <Anchor component={Link} to="/topics" size="xs" underline="always">
              Topics
            </Anchor>{" "}
            page.
          </>
        ) : (
          "Only contacts opted into the topic receive it, and its unsubscribe link leaves that topic only."
        )
      }
      data={options}
      value={value ?? NO_TOPIC}
      onChange={(v) => onChange(v === null || v === NO_TOPIC ? null : v)}
      allowDeselect={false}
      readOnly={readOnly}
      error={error}
    />
  );
}

const EXAMPLE: FilterExpression = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] };

/** A first filter to edit when the filter option is chosen, rather than an empty box. */
const switchTo = (audienceType: AudienceType, current: Audience): Partial<Audience> =>
  audienceType === "FILTERED" && !current.audienceFilter ? { audienceType, audienceFilter: EXAMPLE } : { audienceType };

/**
 * The filter builder of the Segments pages. It reports every edit; the campaign keeps only a valid
 * expression (null otherwise, so it cannot be saved half-written), while the builder keeps the draft.
 */
function FilterInput({ value, onChange, error, readOnly }: { value: FilterExpression | null; onChange: (f: FilterExpression | null) => void; error?: string; readOnly: boolean }) {
  const [draft, setDraft] = useState<FilterExpression>(() => value ?? EXAMPLE);
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        Filter
      </Text>
      <FilterBuilder
        value={draft}
        onChange={(expr, valid) => {
          setDraft(expr);
          onChange(valid ? expr : null);
        }}
        readOnly={readOnly}
      />
      {error && (
        <Text size="sm" c="error">
          {error}
        </Text>
      )}
    </Stack>
  );
}

/** "1,234 recipients": the subscribed contacts (opted into the topic, if any) the audience holds right now. */
function RecipientCount({ audience }: { audience: Audience }) {
  // Debounced as text: a filter object made each render would restart the wait every time.
  const [debounced] = useDebouncedValue(JSON.stringify(recipientFilter(audience)), 300);
  const filter = useMemo(() => JSON.parse(debounced) as FilterExpression | null, [debounced]);
  const count = useFilterCount(filter);
  const topic = useTopics().data?.find((t) => t.id === audience.topicId);
  const who = audience.topicId ? `subscribed contacts opted into ${topic?.name ?? "the topic"}` : "subscribed contacts";
  let text: string;
  if (filter === null) text = audience.audienceType === "SEGMENT" ? "Pick a segment to see its recipients." : "Write a filter to see its recipients.";
  else if (count.isError) text = "The recipients could not be counted.";
  else if (count.data === undefined) text = "Counting recipients…";
  else text = `${count.data.count.toLocaleString()} recipient${count.data.count === 1 ? "" : "s"} (${who}) right now`;
  return (
    <Text size="sm" role="status" aria-live="polite" data-testid="recipient-count">
      {text}
    </Text>
  );
}

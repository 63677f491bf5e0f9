import { Checkbox, Fieldset, SimpleGrid, Stack, TagsInput, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { ALL_EVENTS, coveredBy, EVENT_FAMILIES, freePatterns, toggle, withFree } from "./event-choices";

/**
 * Which events an endpoint receives: all of them, a whole family, single events, and typed
 * patterns for segments (whose names hold the project's own slugs, so there is no box for them).
 * A box that a broader choice already covers shows ticked and disabled.
 */
export function EventPicker({ value, onChange, error }: { value: string[]; onChange: (events: string[]) => void; error?: ReactNode }) {
  const box = (pattern: string, label: ReactNode) => {
    const covered = coveredBy(value, pattern);
    return (
      <Checkbox
        key={pattern}
        label={label}
        checked={covered !== undefined || value.includes(pattern)}
        disabled={covered !== undefined}
        onChange={(e) => onChange(toggle(value, pattern, e.currentTarget.checked))}
      />
    );
  };
  return (
    <Fieldset legend="Events" variant="unstyled">
      <Stack gap="md">
        {box(ALL_EVENTS, "All events (*)")}
        {EVENT_FAMILIES.map((family) => (
          <Stack key={family.name} gap="xs">
            {box(family.wildcard, `All ${family.name} events (${family.wildcard})`)}
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" verticalSpacing="xs" pl="lg">
              {family.events.map((event) => box(event, event))}
            </SimpleGrid>
          </Stack>
        ))}
        <TagsInput
          label="Segment patterns"
          description="segment.<slug>.entry or segment.<slug>.exit, with * for any part (segment.*.entry); any other pattern goes here too. Enter after each."
          placeholder="segment.*.entry"
          value={freePatterns(value)}
          onChange={(free) => onChange(withFree(value, free))}
          splitChars={[",", " "]}
          clearable
        />
        {error && (
          <Text size="sm" c="red.8" role="alert">
            {error}
          </Text>
        )}
      </Stack>
    </Fieldset>
  );
}

import type { FilterExpression } from "@mailroom/contracts";
import { Group, Loader, Text } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useFilterCount } from "../../api/segments";

/**
 * How many contacts the expression matches now (`POST /segments/count`), asked again a moment after
 * the last edit, and only for an expression the schema accepted (null: not valid yet).
 */
export function LiveCount({ filters, noun = "contact" }: { filters: FilterExpression | null; noun?: string }) {
  // An expression is a new object on every edit, so this waits for 400 ms without one.
  const [debounced] = useDebouncedValue(filters, 400);
  const count = useFilterCount(debounced);
  const settled = debounced === filters && !count.isFetching;
  let text: string;
  if (filters === null) text = "Complete the filter to see how many match.";
  else if (count.isError) text = `Could not count: ${count.error.message}`;
  else if (count.data === undefined) text = "Counting…";
  else text = `${count.data.count} ${noun}${count.data.count === 1 ? "" : "s"} match${count.data.count === 1 ? "es" : ""}`;
  return (
    <Group gap="xs" role="status" aria-label="Matching contacts" aria-busy={!settled} data-settled={settled}>
      <Text fw={500}>{text}</Text>
      {!settled && filters !== null && <Loader size="xs" aria-label="Counting" />}
    </Group>
  );
}

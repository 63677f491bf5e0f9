import { Badge } from "@mantine/core";

/** A yes-or-no property as an outlined badge: blue and `yes` when on, grey and `no` when off. */
export function FlagBadge({ on, yes, no }: { on: boolean; yes: string; no: string }) {
  return (
    <Badge variant="outline" color={on ? "blue" : "gray"}>
      {on ? yes : no}
    </Badge>
  );
}

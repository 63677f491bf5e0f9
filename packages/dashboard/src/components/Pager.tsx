import { Button, Group, Text } from "@mantine/core";

/** Previous / next for a cursor-paged list (see lib/cursors.ts). */
export function Pager({ page, hasPrevious, hasMore, onPrevious, onNext, label }: {
  page: number;
  hasPrevious: boolean;
  hasMore: boolean;
  onPrevious: () => void;
  onNext: () => void;
  /** Names the list, so two pagers on one page are told apart. */
  label: string;
}) {
  if (!hasPrevious && !hasMore) return null;
  return (
    <Group justify="flex-end" gap="xs" role="navigation" aria-label={`${label} pages`}>
      <Text size="sm" c="dimmed">
        Page {page}
      </Text>
      <Button variant="default" size="xs" disabled={!hasPrevious} onClick={onPrevious}>
        Previous
      </Button>
      <Button variant="default" size="xs" disabled={!hasMore} onClick={onNext}>
        Next
      </Button>
    </Group>
  );
}

import { Stack, Text, Title } from "@mantine/core";

/** The placeholder of an area whose page is not built yet. */
export function ComingSoon({ title }: { title: string }) {
  return (
    <Stack gap="xs">
      <Title order={2}>{title}</Title>
      <Text c="dimmed">This page is coming soon.</Text>
    </Stack>
  );
}

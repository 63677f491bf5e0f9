import { Center, Paper, Stack, } from "@mantine/core";
import type { ReactNode } from "react";
import { ColorSchemeToggle } from "./ColorSchemeToggle";
import { PageHeader } from "./PageHeader";

/** The frame of the pages before a session: sign in, accept an invitation. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="md" w={400} maw="100%">
        <Stack>
          <PageHeader title={title} />
          {children}
        </Stack>
      </Paper>
      <div style={{ position: "fixed", top: 16, right: 16 }}>
        <ColorSchemeToggle />
      </div>
    </Center>
  );
}

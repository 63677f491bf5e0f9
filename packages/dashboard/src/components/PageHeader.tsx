import type { Role } from "@mailroom/contracts";
import { Anchor, Button, Group, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { useCan } from "./Can";

/**
 * The top of every page: the way back to its list, the title (the page's one level-2 heading, which
 * the browser tests and screen readers find first), a status beside it, what the page is for, and
 * its actions on the right (they wrap under the title on a phone).
 */
export function PageHeader({ title, badge, back, description, actions }: {
  title: ReactNode;
  /** Beside the title: the record's status. */
  badge?: ReactNode;
  /** Above the title: the list this record belongs to ("← All contacts"). */
  back?: { to: string; label: string };
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Stack gap="sm">
      {back && (
        <Anchor component={Link} to={back.to} size="sm" w="fit-content">
          ← {back.label}
        </Anchor>
      )}
      <Group justify="space-between" gap="sm">
        <Group gap="sm">
          <Title order={2}>{title}</Title>
          {badge}
        </Group>
        {actions && <Group gap="xs">{actions}</Group>}
      </Group>
      {description && (
        <Text size="sm" c="dimmed">
          {description}
        </Text>
      )}
    </Stack>
  );
}

/**
 * A list page's "New …" action: a link to the form (`to`) or a dialog (`onClick`), shown only to a
 * role that may create (editors, unless `minRole` says otherwise); the gateway refuses the rest anyway.
 */
export function NewButton({ children, to, onClick, minRole = "editor" }: { children: string; to?: string; onClick?: () => void; minRole?: Role }) {
  if (!useCan(minRole)) return null;
  return to ? (
    <Button component={Link} to={to}>
      {children}
    </Button>
  ) : (
    <Button onClick={onClick}>{children}</Button>
  );
}

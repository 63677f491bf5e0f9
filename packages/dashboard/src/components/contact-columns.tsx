import type { Contact } from "@mailroom/contracts";
import { Anchor, Badge } from "@mantine/core";
import { Link } from "react-router";
import { formatTime } from "../lib/format";
import type { Column } from "./DataTable";

/** A contact as a row, wherever contacts are listed (the contacts page, a segment's members). */
export const CONTACT_COLUMNS: Column<Pick<Contact, "id" | "email" | "subscribed" | "createdAt">>[] = [
  {
    header: "Email",
    cell: (c) => (
      <Anchor component={Link} to={`/contacts/${encodeURIComponent(c.id)}`}>
        {c.email}
      </Anchor>
    ),
  },
  {
    header: "Subscription",
    cell: (c) => (
      <Badge variant="outline" color={c.subscribed ? "blue" : "gray"}>
        {c.subscribed ? "Subscribed" : "Unsubscribed"}
      </Badge>
    ),
  },
  { header: "Created", cell: (c) => formatTime(c.createdAt) },
];

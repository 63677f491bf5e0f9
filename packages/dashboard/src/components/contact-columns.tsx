import type { Contact } from "@mailroom/contracts";
import { formatTime } from "../lib/format";
import { type Column, linkColumn } from "./DataTable";
import { FlagBadge } from "./FlagBadge";

/** A contact as a row, wherever contacts are listed (the contacts page, a segment's members). */
export const CONTACT_COLUMNS: Column<Pick<Contact, "id" | "email" | "subscribed" | "createdAt">>[] = [
  linkColumn("Email", (c) => `/contacts/${encodeURIComponent(c.id)}`, (c) => c.email),
  {
    header: "Subscription",
    cell: (c) => (
      <FlagBadge on={c.subscribed} yes="Subscribed" no="Unsubscribed" />
    ),
  },
  { header: "Created", cell: (c) => formatTime(c.createdAt) },
];

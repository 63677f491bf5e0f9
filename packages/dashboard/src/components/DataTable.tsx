import { Anchor, type AnchorProps, Pagination, Table, type TableProps, VisuallyHidden } from "@mantine/core";
import type { CSSProperties, ReactNode } from "react";
import { Link } from "react-router";
import type { CursorTrail } from "../lib/cursors";
import { Pager } from "./Pager";
import { Empty } from "./QueryState";
import { type QueryLike, QueryStatus } from "./QueryStatus";

/** One column: its header and what a row shows in it. */
export interface Column<T> {
  header: string;
  /** The header is read by screen readers only (a column of buttons). */
  hideHeader?: boolean;
  cell: (row: T) => ReactNode;
  /** A `<th scope="row">`: the cell that names its row. */
  rowHeader?: boolean;
  style?: CSSProperties;
  /** A fixed width, for a table laid out `fixed`. */
  width?: number;
}

/** A column whose cell links to a page of the app: `to` is relative to the list unless it starts with "/". */
export function linkColumn<T>(header: string, to: (row: T) => string, text: (row: T) => ReactNode, anchor: AnchorProps = {}): Column<T> {
  return {
    header,
    cell: (row) => (
      <Anchor component={Link} to={to(row)} {...anchor}>
        {text(row)}
      </Anchor>
    ),
  };
}

/** A list's first column: the record's name, linking to its page (`<list>/<id>`). */
export const nameColumn = <T extends { id: string; name: string }>(): Column<T> =>
  linkColumn("Name", (row) => encodeURIComponent(row.id), (row) => row.name);

export interface DataTableProps<T> {
  /** Names the table (and its pager): `getByRole("table", { name })`. */
  label: string;
  /** A visible caption, read as the table's name instead of `label`. */
  caption?: string;
  /** `false` or `null` entries are left out: a column only some roles see. */
  columns: ReadonlyArray<Column<NoInfer<T>> | false | null | undefined>;
  rowKey: (row: T, index: number) => string | number;
  /** Shown instead of the table when there is no row. */
  empty?: ReactNode;
  /** Below this width the table keeps it and scrolls sideways in its own box, never the page. */
  minWidth?: number;
  /** Without a header row (a two-column table of labelled values). */
  noHeader?: boolean;
  /** Mantine's table options beyond the defaults (striped, hover). */
  tableProps?: TableProps;
}

/**
 * Every table of the dashboard: its rows in columns, its empty state, and a box of its own that
 * scrolls sideways on a narrow screen (the page itself never does: the phone-width browser test
 * checks every page). `type="native"`: the table shrinks to the box first and wraps its text, and
 * the browser's own scroller is reachable from the keyboard.
 */
export function DataTable<T>({ label, caption, columns, rowKey, rows, empty, minWidth = 0, noHeader, tableProps }: DataTableProps<T> & { rows: readonly T[] }) {
  if (rows.length === 0 && empty !== undefined) return typeof empty === "string" ? <Empty>{empty}</Empty> : <>{empty}</>;
  const shown = columns.filter((c): c is Column<T> => Boolean(c));
  return (
    // positioned, so a visually hidden header (absolutely placed) scrolls with the table instead of widening the page
    <Table.ScrollContainer minWidth={minWidth} type="native" pos="relative">
      <Table striped highlightOnHover aria-label={caption ? undefined : label} {...tableProps}>
        {caption && <Table.Caption>{caption}</Table.Caption>}
        {!noHeader && (
          <Table.Thead>
            <Table.Tr>
              {shown.map((c) => (
                <Table.Th key={c.header} w={c.width}>
                  {c.hideHeader ? <VisuallyHidden>{c.header}</VisuallyHidden> : c.header}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
        )}
        <Table.Tbody>
          {rows.map((row, i) => (
            <Table.Tr key={rowKey(row, i)}>
              {shown.map((c) =>
                c.rowHeader ? (
                  <Table.Th key={c.header} scope="row" style={c.style}>
                    {c.cell(row)}
                  </Table.Th>
                ) : (
                  <Table.Td key={c.header} style={c.style}>
                    {c.cell(row)}
                  </Table.Td>
                ),
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A page of a cursor-paged list, as the API answers it. */
interface CursorPage {
  hasMore: boolean;
  cursor: string | null;
}
/** A numbered page of a list, as the API answers it. */
interface NumberedPage {
  page: number;
  totalPages: number;
}
/** The rows of an answer: `{ data: [...] }`, or the answer itself when it is a list. */
type RowOf<D> = D extends readonly (infer R)[] ? R : D extends { data: readonly (infer R)[] } ? R : never;

/**
 * A list read by one query: its loading and error states, the table or the empty state, and its
 * pages: numbered (`onPage`) or by cursor (`trail`, for answers with `hasMore` and `cursor`). The
 * rows are the answer (a list) or its `data`, and each row's key its `id`, unless `rows` and
 * `rowKey` say otherwise.
 */
export function QueryTable<D, T = RowOf<D>>({
  query,
  rows = (data) => (Array.isArray(data) ? data : (data as { data: readonly T[] }).data),
  rowKey = (row) => (row as { id: string }).id,
  what,
  onPage,
  trail,
  ...table
}: Omit<DataTableProps<T>, "rowKey"> & {
  query: QueryLike & { data: D | undefined };
  rows?: (data: D) => readonly T[];
  rowKey?: DataTableProps<T>["rowKey"];
  /** "Loading <what>" while the first answer is on its way; the label in lower case by default. */
  what?: string;
  onPage?: D extends NumberedPage ? (page: number) => void : never;
  trail?: D extends CursorPage ? CursorTrail : never;
}) {
  return (
    <QueryStatus query={query} what={what ?? table.label.toLowerCase()}>
      {() => {
        const data = query.data as D;
        const list = rows(data);
        return (
          <>
            <DataTable {...table} rowKey={rowKey} rows={list} />
            {list.length > 0 && onPage && <NumberedPager data={data as NumberedPage} onPage={onPage} />}
            {list.length > 0 && trail && <CursorPager label={table.label} data={data as CursorPage} trail={trail} />}
          </>
        );
      }}
    </QueryStatus>
  );
}

function NumberedPager({ data, onPage }: { data: NumberedPage; onPage: (page: number) => void }) {
  return data.totalPages > 1 ? <Pagination total={data.totalPages} value={data.page} onChange={onPage} aria-label="Pages" /> : null;
}

function CursorPager({ label, data, trail }: { label: string; data: CursorPage; trail: CursorTrail }) {
  return (
    <Pager
      label={label}
      page={trail.page}
      hasPrevious={trail.hasPrevious}
      hasMore={data.hasMore && data.cursor !== null}
      onPrevious={trail.previous}
      onNext={() => data.cursor && trail.next(data.cursor)}
    />
  );
}

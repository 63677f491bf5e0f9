import { lazy } from "react";
import { Route, Routes } from "react-router";
import { SegmentList } from "./SegmentList";

// The builder (every input of the filter language) loads when a segment is opened, not with the list.
const SegmentEditor = lazy(() => import("./SegmentEditor"));

/** `/segments` lists them; `/segments/new` and `/segments/<id>` open the builder. */
export default function SegmentsArea() {
  return (
    <Routes>
      <Route index element={<SegmentList />} />
      <Route path="new" element={<SegmentEditor />} />
      <Route path=":id" element={<SegmentEditor />} />
    </Routes>
  );
}


import { PageHeader } from "./PageHeader";

/** The placeholder of an area whose page is not built yet. */
export function ComingSoon({ title }: { title: string }) {
  return (
    <PageHeader title={title} description="This page is coming soon." />
  );
}

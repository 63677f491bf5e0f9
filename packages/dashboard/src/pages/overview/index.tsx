import { ComingSoon } from "../../components/ComingSoon";

export default function OverviewPage() {
  return <ComingSoon title="Overview" />;
}

import { ComingSoon } from "../../components/ComingSoon";

export default function TemplatesPage() {
  return <ComingSoon title="Templates" />;
}

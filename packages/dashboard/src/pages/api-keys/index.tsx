import { ComingSoon } from "../../components/ComingSoon";

export default function ApiKeysPage() {
  return <ComingSoon title="API keys" />;
}

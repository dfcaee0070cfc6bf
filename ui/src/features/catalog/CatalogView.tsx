import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { BookOpen, Bot, Plug, Scale, Sparkles, Webhook, Wrench } from "lucide-react";

import { ApiError } from "../../api";
import { errorText } from "../../app/errorText";
import { Tabs } from "../../components/Tabs";
import { UndoProvider } from "../../components/UndoToast";
import { useRoute } from "../../app/route";
import { AgentsPanel } from "./AgentsPanel";
import { EndpointsPanel } from "./EndpointsPanel";
import { EthicsPanel } from "./EthicsPanel";
import { McpServersPanel } from "./McpServersPanel";
import { agentsQuery, endpointsQuery, mcpServersQuery, skillsQuery, toolsQuery } from "./queries";
import { SkillsPanel } from "./SkillsPanel";
import { SpecialistsPanel } from "./SpecialistsPanel";
import { ToolsPanel } from "./ToolsPanel";

type TabId = "agents" | "skills" | "tools" | "mcp" | "endpoints" | "ethics" | "specialists";
const PANELS: Record<TabId, () => React.ReactElement> = {
  agents: AgentsPanel,
  skills: SkillsPanel,
  tools: ToolsPanel,
  mcp: McpServersPanel,
  endpoints: EndpointsPanel,
  ethics: EthicsPanel,
  specialists: SpecialistsPanel,
};

export function CatalogView() {
  const { t } = useTranslation();
  const [route, navigate] = useRoute();
  const active = (Object.keys(PANELS) as TabId[]).find((id) => id === route.section) ?? "agents";
  const Panel = PANELS[active];
  const agents = useQuery(agentsQuery).data?.length;
  const skills = useQuery(skillsQuery).data?.length;
  const tools = useQuery(toolsQuery).data?.length;
  const mcpServers = useQuery(mcpServersQuery).data?.length;
  const endpoints = useQuery(endpointsQuery).data?.length;
  return (
    <div className="page">
      <header className="view-head">
        <h1>{t("catalog.title")}</h1>
        <p className="muted">{t("catalog.subtitle")}</p>
      </header>
      <Tabs<TabId>
        label={t("catalog.title")}
        active={active}
        onChange={(id) => navigate("catalog", id)}
        tabs={[
          { id: "agents", label: t("catalog.tabs.agents"), icon: Bot, count: agents },
          { id: "skills", label: t("catalog.tabs.skills"), icon: BookOpen, count: skills },
          { id: "tools", label: t("catalog.tabs.tools"), icon: Wrench, count: tools },
          { id: "mcp", label: t("catalog.tabs.mcp"), icon: Plug, count: mcpServers },
          { id: "endpoints", label: t("catalog.tabs.endpoints"), icon: Webhook, count: endpoints },
          { id: "ethics", label: t("catalog.tabs.ethics"), icon: Scale },
          { id: "specialists", label: t("catalog.tabs.specialists"), icon: Sparkles },
        ]}
      />
      {/* Deleting an agent, skill, rule, MCP server or endpoint can be undone for a few seconds. */}
      <UndoProvider describe={(e) => (e instanceof ApiError ? errorText(t, e) : String(e))}>
        <div className="tab-panel" role="tabpanel">
          <Panel />
        </div>
      </UndoProvider>
    </div>
  );
}

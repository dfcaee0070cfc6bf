// The MCP servers an agent is given, as named toggles (like its skills): a
// server given this way brings every tool it lists, now and after it lists
// new ones. A pattern such as `mcp__github__*` in the tools field does the
// same for one server; this is the way that needs no pattern.

import { useTranslation } from "react-i18next";

import type { McpServer } from "../../api";
import { OffBadge } from "./SkillToggles";

interface McpServerTogglesProps {
  servers: readonly McpServer[];
  chosen: string[];
  onChange(next: string[]): void;
}

export function McpServerToggles({ servers, chosen, onChange }: McpServerTogglesProps) {
  const { t } = useTranslation();
  const toggle = (id: string) => onChange(chosen.includes(id) ? chosen.filter((s) => s !== id) : [...chosen, id]);
  // A server that is gone stays listed while the agent still names it.
  const unknown = chosen.filter((id) => !servers.some((s) => s.id === id));
  const given = servers.filter((s) => chosen.includes(s.id)).flatMap((s) => s.tools.map((tool) => tool.id));
  return (
    <div className="skill-toggles">
      <ul className="skill-toggle-list">
        {servers.map((server) => {
          const on = chosen.includes(server.id);
          return (
            <li key={server.id}>
              <button
                type="button"
                role="switch"
                aria-checked={on}
                className={on ? "skill-toggle on" : "skill-toggle"}
                title={server.enabled ? server.id : `${server.id} — ${t("mcp.agent.offHint")}`}
                onClick={() => toggle(server.id)}
                data-testid={`mcp-toggle-${server.id}`}
              >
                <span className="switch-look" aria-hidden="true">
                  <span className="switch-thumb" />
                </span>
                <span className="skill-toggle-text">
                  <span className="skill-toggle-name">
                    {server.name}
                    {!server.enabled && <OffBadge kind="tool" />}
                  </span>
                  <span className="skill-toggle-sub">
                    {server.tools.length > 0 ? t("mcp.agent.tools", { count: server.tools.length }) : t("mcp.agent.noToolsYet")}
                  </span>
                </span>
              </button>
            </li>
          );
        })}
        {unknown.map((id) => (
          <li key={id}>
            <button type="button" role="switch" aria-checked className="skill-toggle on" onClick={() => toggle(id)} data-testid={`mcp-toggle-${id}`}>
              <span className="switch-look" aria-hidden="true">
                <span className="switch-thumb" />
              </span>
              <span className="skill-toggle-text">
                <span className="skill-toggle-name mono">{id}</span>
                <span className="skill-toggle-sub">{t("mcp.agent.gone")}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {given.length > 0 && (
        <p className="field-hint mcp-given" data-testid="agent-mcp-tools">
          {t("mcp.agent.gives", { count: given.length })}{" "}
          {given.map((id) => (
            <code key={id} className="mcp-given-tool">
              {id}
            </code>
          ))}
        </p>
      )}
    </div>
  );
}

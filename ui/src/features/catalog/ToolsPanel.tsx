// Tools: every tool of the catalog by category with its switch, filtered
// by name, id or what it does, and by where it comes from (built in, or
// which MCP server: those are grouped by server and say so on each row);
// and the dialog that renames or re-describes one.

import { useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Pencil, Plug } from "lucide-react";

import { api, type ApiError, type Tool } from "../../api";
import { Button, IconButton } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { filterList, ListFilter } from "../../components/ListFilter";
import { Switch } from "../../components/Switch";
import { errorText } from "../../app/errorText";
import { keepsSource, sourceOf, type SourceFilter } from "./mcpDraft";
import { catalogKeys, mcpServersQuery, toolsQuery } from "./queries";
import { OffBadge } from "./SkillToggles";

/** Every tool of the catalog by category (MCP tools by server), with its switch. */
export function ToolsPanel() {
  const { t } = useTranslation();
  const tools = useQuery(toolsQuery);
  const servers = useQuery(mcpServersQuery).data;
  const [filter, setFilter] = useState("");
  const [source, setSource] = useState<SourceFilter>("all");
  const [editing, setEditing] = useState<Tool | null>(null);
  const serverName = useMemo(() => {
    const names = new Map((servers ?? []).map((s) => [s.id, s.name]));
    return (id: string) => names.get(id) ?? id;
  }, [servers]);
  const groups = useMemo(() => {
    const byGroup = new Map<string, { title: string; list: Tool[] }>();
    const kept = (tools.data ?? []).filter((tool) => keepsSource(source, tool));
    const shown = filterList(kept, filter, (tool) => {
      const server = sourceOf(tool).server;
      return [tool.id, tool.displayName, tool.description, t(`tools.categories.${tool.category}`, { defaultValue: tool.category }), server ? serverName(server) : null];
    });
    for (const tool of shown) {
      const server = sourceOf(tool).server;
      const key = server ? `mcp:${server}` : tool.category;
      const title = server ? t("mcp.tools.group", { name: serverName(server) }) : t(`tools.categories.${tool.category}`, { defaultValue: tool.category });
      const group = byGroup.get(key) ?? { title, list: [] };
      group.list.push(tool);
      byGroup.set(key, group);
    }
    return [...byGroup.entries()];
  }, [tools.data, filter, source, serverName, t]);
  const mcpServerIds = [...new Set((tools.data ?? []).map((tool) => sourceOf(tool).server).filter((id): id is string => id !== null))];
  const hasEndpoints = (tools.data ?? []).some((tool) => tool.source === "endpoint");
  const shownCount = groups.reduce((sum, [, group]) => sum + group.list.length, 0);
  const active = (tools.data ?? []).filter((tool) => tool.active).length;

  return (
    <div className="section">
      <div className="toolbar">
        <ListFilter className="tools-filter" value={filter} onChange={setFilter} label={t("tools.filter")} shown={shownCount} total={tools.data?.length ?? 0} testId="tools-filter" />
        <select className="input input-sm tools-source" value={source} aria-label={t("mcp.tools.source")} onChange={(e) => setSource(e.target.value as SourceFilter)} data-testid="tools-source">
          <option value="all">{t("mcp.tools.sources.all")}</option>
          <option value="builtin">{t("mcp.tools.sources.builtin")}</option>
          {hasEndpoints && <option value="endpoint">{t("mcp.tools.sources.endpoint")}</option>}
          {mcpServerIds.length > 0 && <option value="mcp">{t("mcp.tools.sources.mcp")}</option>}
          {mcpServerIds.map((id) => (
            <option key={id} value={`mcp:${id}`}>
              {t("mcp.tools.group", { name: serverName(id) })}
            </option>
          ))}
        </select>
        <span className="muted small">{t("tools.activeCount", { active, total: tools.data?.length ?? 0 })}</span>
      </div>
      {(filter || source !== "all") && shownCount === 0 && <p className="muted">{t("forms.filter.none")}</p>}
      {groups.map(([key, group]) => (
        <section key={key} className="card tool-group" data-testid={`tool-group-${key}`}>
          <h4 className="models-title">{group.title}</h4>
          <ul className="tool-list">
            {group.list.map((tool) => (
              <ToolRow key={tool.id} tool={tool} server={sourceOf(tool).server} serverName={serverName} onEdit={() => setEditing(tool)} />
            ))}
          </ul>
        </section>
      ))}
      {editing && <ToolDialog tool={editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

function ToolRow({ tool, server, serverName, onEdit }: { tool: Tool; server: string | null; serverName(id: string): string; onEdit(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const toggle = useMutation<Tool, ApiError, boolean>({
    mutationFn: (activeNow) => api.setToolActive(tool.id, activeNow),
    onSettled: () => void client.invalidateQueries({ queryKey: catalogKeys.tools }),
  });
  return (
    <li className="tool-row" data-testid={`tool-${tool.id}`}>
      <div className="tool-main">
        <span className="tool-name">
          <span className="mono">{tool.id}</span>
          {tool.displayName !== tool.id && <span className="muted small">{tool.displayName}</span>}
          {tool.minimal && <span className="badge badge-accent">{t("tools.minimal")}</span>}
          {server && (
            <span className="badge badge-source" title={t("mcp.tools.fromServer", { name: serverName(server) })} data-testid="tool-source">
              <Plug size={11} aria-hidden="true" /> {serverName(server)}
            </span>
          )}
          {!tool.active && <OffBadge kind="tool" />}
        </span>
        <span className="tool-description">{tool.description}</span>
        {toggle.error && <span className="field-error">{errorText(t, toggle.error)}</span>}
      </div>
      <IconButton label={t("tools.edit", { name: tool.id })} onClick={onEdit}>
        <Pencil size={15} />
      </IconButton>
      <Switch checked={tool.active} disabled={toggle.isPending} label={t("tools.toggle", { name: tool.id })} onChange={(a) => toggle.mutate(a)} />
    </li>
  );
}

function ToolDialog({ tool, onClose }: { tool: Tool; onClose(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [displayName, setDisplayName] = useState(tool.displayName === tool.id ? "" : tool.displayName);
  const [description, setDescription] = useState(tool.customized ? tool.description : "");
  const save = useMutation<Tool, ApiError>({
    mutationFn: () => api.updateToolMetadata(tool.id, { displayName, description }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: catalogKeys.tools });
      onClose();
    },
  });
  return (
    <Dialog
      title={t("tools.editTitle", { name: tool.id })}
      onClose={onClose}
      closeLabel={t("common.close")}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>{t("common.cancel")}</Button>
          <Button variant="primary" busy={save.isPending} onClick={() => save.mutate()}>{t("common.save")}</Button>
        </>
      }
    >
      <div className="form">
        <Field id="tool-name" label={t("tools.displayName")} hint={t("tools.restoreHint")}>
          <input id="tool-name" className="input" value={displayName} placeholder={tool.id} onChange={(e) => setDisplayName(e.target.value)} />
        </Field>
        <Field id="tool-description" label={t("tools.description")} hint={t("tools.descriptionHint")} error={save.error ? errorText(t, save.error) : null}>
          <textarea id="tool-description" className="input textarea" rows={4} value={description} placeholder={tool.customized ? "" : tool.description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <details>
          <summary className="muted small">{t("tools.schema")}</summary>
          <pre className="prompt-preview">{JSON.stringify(tool.parameters, null, 2)}</pre>
        </details>
      </div>
    </Dialog>
  );
}

// Tools: every tool of the catalog by category with its switch, filtered
// by name, id or what it does; and the dialog that renames or re-describes one.

import { useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Pencil } from "lucide-react";

import { api, type ApiError, type Tool } from "../../api";
import { Button, IconButton } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { filterList, ListFilter } from "../../components/ListFilter";
import { Switch } from "../../components/Switch";
import { errorText } from "../../app/errorText";
import { catalogKeys, toolsQuery } from "./queries";
import { OffBadge } from "./SkillToggles";

/** Every tool of the catalog by category, with its switch. */
export function ToolsPanel() {
  const { t } = useTranslation();
  const tools = useQuery(toolsQuery);
  const [filter, setFilter] = useState("");
  const [editing, setEditing] = useState<Tool | null>(null);
  const groups = useMemo(() => {
    const byCategory = new Map<string, Tool[]>();
    const shown = filterList(tools.data ?? [], filter, (tool) => [tool.id, tool.displayName, tool.description, t(`tools.categories.${tool.category}`, { defaultValue: tool.category })]);
    for (const tool of shown) {
      byCategory.set(tool.category, [...(byCategory.get(tool.category) ?? []), tool]);
    }
    return [...byCategory.entries()];
  }, [tools.data, filter, t]);
  const shownCount = groups.reduce((sum, [, list]) => sum + list.length, 0);
  const active = (tools.data ?? []).filter((tool) => tool.active).length;

  return (
    <div className="section">
      <div className="toolbar">
        <ListFilter className="tools-filter" value={filter} onChange={setFilter} label={t("tools.filter")} shown={shownCount} total={tools.data?.length ?? 0} testId="tools-filter" />
        <span className="muted small">{t("tools.activeCount", { active, total: tools.data?.length ?? 0 })}</span>
      </div>
      {filter && shownCount === 0 && <p className="muted">{t("forms.filter.none")}</p>}
      {groups.map(([category, list]) => (
        <section key={category} className="card tool-group">
          <h4 className="models-title">{t(`tools.categories.${category}`, { defaultValue: category })}</h4>
          <ul className="tool-list">
            {list.map((tool) => (
              <ToolRow key={tool.id} tool={tool} onEdit={() => setEditing(tool)} />
            ))}
          </ul>
        </section>
      ))}
      {editing && <ToolDialog tool={editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

function ToolRow({ tool, onEdit }: { tool: Tool; onEdit(): void }) {
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

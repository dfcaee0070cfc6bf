// MCP servers: the programs and URLs whose tools join the catalog. The list
// says how each one is reached and how it is doing (a failed start shows
// why, with what the program wrote on its way out); from here a person
// adds one by hand, from a preset or from another client's configuration.

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { FileInput, Plus, Sparkles } from "lucide-react";

import type { McpServer, McpServerInput } from "../../api";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { Button } from "../../components/Button";
import { filterList, ListFilter } from "../../components/ListFilter";
import { Spinner } from "../../components/Spinner";
import { useUndo } from "../../components/UndoToast";
import { McpImportDialog } from "./McpImportDialog";
import { McpPresetsDialog } from "./McpPresetsDialog";
import { McpServerDialog } from "./McpServerDialog";
import { McpServerRow } from "./McpServerRow";
import { transportSummary } from "./mcpDraft";
import { mcpServersQuery } from "./queries";

/** What the add/edit dialog is open for. */
type Editing = { server: McpServer } | { preset: McpServerInput; missing: string | null } | "new" | null;

export function McpServersPanel() {
  const { t } = useTranslation();
  const servers = useQuery(mcpServersQuery);
  const [filter, setFilter] = useState("");
  const [editing, setEditing] = useState<Editing>(null);
  const [presets, setPresets] = useState(false);
  const [importing, setImporting] = useState(false);
  const undo = useUndo();
  const list = (servers.data ?? []).filter((s) => !undo.isHidden(`mcp:${s.id}`));
  const shown = filterList(list, filter, (s) => [s.name, s.id, transportSummary(s.transport), ...s.tools.map((tool) => tool.id)]);
  useShortcutAction("new", () => setEditing("new"), "catalog/mcp");

  return (
    <div className="section" data-testid="mcp-panel">
      <div className="toolbar mcp-toolbar">
        <p className="muted">{t("mcp.subtitle")}</p>
        <div className="button-row">
          <Button icon={<FileInput size={16} />} onClick={() => setImporting(true)} data-testid="mcp-import">
            {t("mcp.import.open")}
          </Button>
          <Button icon={<Sparkles size={16} />} onClick={() => setPresets(true)} data-testid="mcp-add-preset">
            {t("mcp.presets.open")}
          </Button>
          <Button variant="primary" icon={<Plus size={16} />} onClick={() => setEditing("new")} title={shortcutTitle(t("mcp.add"), "new")} data-testid="mcp-add">
            {t("mcp.add")}
          </Button>
        </div>
      </div>
      {list.length > 3 && (
        <ListFilter className="rules-filter" value={filter} onChange={setFilter} label={t("mcp.filter")} shown={shown.length} total={list.length} testId="mcp-filter" />
      )}
      {servers.isPending && <Spinner size={18} />}
      {servers.data && list.length === 0 && (
        <div className="card mcp-empty">
          <p>{t("mcp.empty")}</p>
          <p className="muted small">{t("mcp.emptyHint")}</p>
        </div>
      )}
      {filter && shown.length === 0 && <p className="muted">{t("forms.filter.none")}</p>}
      <ul className="mcp-list" aria-label={t("catalog.tabs.mcp")}>
        {shown.map((server) => (
          <McpServerRow key={server.id} server={server} onEdit={() => setEditing({ server })} />
        ))}
      </ul>
      {editing !== null && (
        <McpServerDialog
          key={editing === "new" ? "new" : "server" in editing ? editing.server.id : `preset-${editing.preset.preset ?? ""}`}
          server={editing !== "new" && "server" in editing ? editing.server : undefined}
          preset={editing !== "new" && "preset" in editing ? editing.preset : undefined}
          missing={editing !== "new" && "preset" in editing ? editing.missing : null}
          onClose={() => setEditing(null)}
        />
      )}
      {presets && (
        <McpPresetsDialog
          onClose={() => setPresets(false)}
          onPick={(preset) => {
            setPresets(false);
            setEditing({ preset: preset.input, missing: preset.missing });
          }}
        />
      )}
      {importing && <McpImportDialog onClose={() => setImporting(false)} />}
    </div>
  );
}
